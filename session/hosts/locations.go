package hosts

import (
	"cmp"
	"path/filepath"
	"strings"
)

// Location is one config file a host reads.
type Location struct {
	Host    Host
	Path    string
	Project bool // a file of a workspace (.vscode/mcp.json), not of the user
}

// Env is what locating and resolving need from the machine, so that tests
// (and other systems) can be described without touching the real one.
type Env struct {
	GOOS      string // runtime.GOOS
	Home      string // the user's home directory
	Workspace string // the project directory ("" = the current one)
	// Getenv looks up a variable of the environment the host would pass on.
	Getenv func(string) (string, bool)
	// AppData is %APPDATA% on Windows ("" = Home\AppData\Roaming).
	AppData string
	// LocalAppData is %LOCALAPPDATA% on Windows ("" = Home\AppData\Local).
	LocalAppData string
}

// lookup is Getenv, nothing when there is none.
func (env Env) lookup(name string) (string, bool) {
	if env.Getenv == nil {
		return "", false
	}
	return env.Getenv(name)
}

// GuessHost tells the host from a config file's name and place; ok is
// false when the name says nothing (pass --host).
func GuessHost(path string) (Host, bool) {
	base := filepath.Base(path)
	dir := filepath.Base(filepath.Dir(path))
	ext := strings.ToLower(filepath.Ext(path))
	isYAML := ext == ".yaml" || ext == ".yml"
	switch {
	case base == "claude_desktop_config.json":
		return ClaudeDesktop, true
	case base == ".mcp.json" || base == ".claude.json" || base == "managed-mcp.json":
		// managed-mcp.json: Claude Code's enterprise list (/etc/claude-code/,
		// /Library/Application Support/ClaudeCode/, C:\Program Files\ClaudeCode\),
		// in .mcp.json's format.
		return ClaudeCode, true
	case base == "mcp_config.json":
		return Windsurf, true
	case base == "mcp.json" && dir == ".cursor":
		return Cursor, true
	case base == "mcp.json" && dir == ".roo", base == "mcp_settings.json" && filepath.Base(filepath.Dir(filepath.Dir(path))) == "rooveterinaryinc.roo-cline":
		return RooCode, true
	case base == "mcp.json" && (dir == ".vscode" || dir == "User"):
		return VSCode, true
	case base == "settings.json" && (dir == "zed" || dir == "Zed" || dir == ".zed"):
		return Zed, true
	case base == "settings.json" && dir == ".gemini":
		return GeminiCLI, true
	case base == "opencode.json" || base == "opencode.jsonc":
		return OpenCode, true
	case base == "config.toml" && dir == ".codex":
		return Codex, true
	case isYAML && (base == "config.yaml" && dir == ".continue" || dir == "mcpServers" && filepath.Base(filepath.Dir(filepath.Dir(path))) == ".continue"):
		return Continue, true
	case base == "config.yaml" && (dir == "goose" || dir == "config" && filepath.Base(filepath.Dir(filepath.Dir(path))) == "goose"):
		return Goose, true
	}
	return "", false
}

// DefaultLocations returns where host keeps its server lists on env's
// system, user files first, then the workspace's.
func DefaultLocations(h Host, env Env) []Location {
	l := newLocator(h, env)
	switch h {
	case ClaudeDesktop:
		return l.claudeDesktop()
	case ClaudeCode:
		// $CLAUDE_CONFIG_DIR moves ~/.claude.json into it.
		if dir, ok := env.lookup("CLAUDE_CONFIG_DIR"); ok && filepath.IsAbs(dir) {
			return []Location{l.at(dir, ".claude.json"), l.project(".mcp.json")}
		}
		return []Location{l.user(".claude.json"), l.project(".mcp.json")}
	case VSCode:
		return l.vscode()
	case Cursor:
		return []Location{l.user(".cursor", "mcp.json"), l.project(".cursor", "mcp.json")}
	case RooCode:
		return l.rooCode()
	case Windsurf:
		return []Location{l.user(".codeium", "windsurf", "mcp_config.json")}
	case Zed:
		return l.zed()
	case GeminiCLI: // %USERPROFILE%\.gemini on Windows
		return []Location{l.user(".gemini", "settings.json"), l.project(".gemini", "settings.json")}
	case OpenCode: // xdg-basedir's config directory, on every system
		return []Location{l.at(l.xdgConfig, "opencode", "opencode.json"), l.project("opencode.json")}
	case Codex: // $CODEX_HOME, else ~/.codex
		if dir, ok := env.lookup("CODEX_HOME"); ok && filepath.IsAbs(dir) {
			return []Location{l.at(dir, "config.toml"), l.project(".codex", "config.toml")}
		}
		return []Location{l.user(".codex", "config.toml"), l.project(".codex", "config.toml")}
	case Continue: // the user's config; a project's blocks (.continue/mcpServers/*.yaml) are given with --config
		return []Location{l.user(".continue", "config.yaml")}
	case Goose:
		return l.goose()
	}
	return nil
}

// A locator names one host's files on one system.
type locator struct {
	h   Host
	env Env
	// appData is %APPDATA%; xdgConfig is $XDG_CONFIG_HOME, where Linux
	// apps (Electron's, Zed) and opencode keep their settings when it is
	// set, ~/.config else.
	appData, xdgConfig string
}

func newLocator(h Host, env Env) locator {
	l := locator{h: h, env: env, appData: env.AppData, xdgConfig: filepath.Join(env.Home, ".config")}
	if l.appData == "" {
		l.appData = filepath.Join(env.Home, "AppData", "Roaming")
	}
	if v, ok := env.lookup("XDG_CONFIG_HOME"); ok && filepath.IsAbs(v) {
		l.xdgConfig = v
	}
	return l
}

// user is a file under the home directory, project one under the
// workspace, at one under dir.
func (l locator) user(p ...string) Location { return l.at(l.env.Home, p...) }

func (l locator) project(p ...string) Location {
	loc := l.at(l.env.Workspace, p...)
	loc.Project = true
	return loc
}

func (l locator) at(dir string, p ...string) Location {
	return Location{Host: l.h, Path: filepath.Join(append([]string{dir}, p...)...)}
}

func (l locator) claudeDesktop() []Location {
	switch l.env.GOOS {
	case "darwin":
		return []Location{l.user("Library", "Application Support", "Claude", "claude_desktop_config.json")}
	case "windows":
		// The MSIX package Claude Desktop has been installed as since
		// 2026 reads its config from its own virtualized AppData
		// (anthropics/claude-code#26073), the classic install from
		// %APPDATA%: whichever exists is read.
		local := cmp.Or(l.env.LocalAppData, filepath.Join(l.env.Home, "AppData", "Local"))
		return []Location{
			l.at(local, "Packages", "Claude_pzs8sxrjxfjjc", "LocalCache", "Roaming", "Claude", "claude_desktop_config.json"),
			l.at(l.appData, "Claude", "claude_desktop_config.json"),
		}
	}
	// no official Linux build; where community builds keep it
	return []Location{l.at(l.xdgConfig, "Claude", "claude_desktop_config.json")}
}

// vscode: Stable and Insiders keep separate profiles ("Code - Insiders"),
// in the places code.visualstudio.com's "Settings file locations" names.
func (l locator) vscode() []Location {
	var out []Location
	for _, app := range []string{"Code", "Code - Insiders"} {
		switch l.env.GOOS {
		case "darwin":
			out = append(out, l.user("Library", "Application Support", app, "User", "mcp.json"))
		case "windows":
			out = append(out, l.at(l.appData, app, "User", "mcp.json"))
		default:
			out = append(out, l.at(l.xdgConfig, app, "User", "mcp.json"))
		}
	}
	return append(out, l.project(".vscode", "mcp.json"))
}

// rooCode: the extension's storage in VS Code's profile, and the project's
// .roo/mcp.json.
func (l locator) rooCode() []Location {
	storage := []string{"Code", "User", "globalStorage", "rooveterinaryinc.roo-cline", "settings", "mcp_settings.json"}
	u := l.at(l.xdgConfig, storage...)
	switch l.env.GOOS {
	case "darwin":
		u = l.user(append([]string{"Library", "Application Support"}, storage...)...)
	case "windows":
		u = l.at(l.appData, storage...)
	}
	return []Location{u, l.project(".roo", "mcp.json")}
}

// zed: ~/.config/zed on macOS too.
func (l locator) zed() []Location {
	u := l.user(".config", "zed", "settings.json")
	switch l.env.GOOS {
	case "linux":
		u = l.at(l.xdgConfig, "zed", "settings.json")
	case "windows":
		u = l.at(l.appData, "Zed", "settings.json")
	}
	return []Location{u, l.project(".zed", "settings.json")}
}

func (l locator) goose() []Location {
	switch l.env.GOOS {
	case "windows":
		return []Location{l.at(l.appData, "Block", "goose", "config", "config.yaml")}
	case "linux":
		return []Location{l.at(l.xdgConfig, "goose", "config.yaml")}
	}
	return []Location{l.user(".config", "goose", "config.yaml")}
}
