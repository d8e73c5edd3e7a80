package hosts

import (
	"os"
	"path/filepath"
	"runtime"
)

// LocalEnv describes this machine: its system, the user's home, the
// process's environment, and workspace made absolute ("": the current
// directory).
func LocalEnv(workspace string) Env {
	home, _ := os.UserHomeDir()
	if workspace == "" {
		workspace, _ = os.Getwd()
	} else if abs, err := filepath.Abs(workspace); err == nil {
		workspace = abs
	}
	return Env{GOOS: runtime.GOOS, Home: home, Workspace: workspace, Getenv: os.LookupEnv, AppData: os.Getenv("APPDATA"), LocalAppData: os.Getenv("LOCALAPPDATA")}
}
