package hosts

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// WriteWithBackup copies path to its one backup beside it,
// path.linesman-backup (mode 0600: a config holds secrets; the backup of
// an earlier wrap or unwrap is replaced, and the numbered ones earlier
// versions left, -backup-2, -3, ..., are removed), then replaces path with
// data through a temporary file and a rename, keeping its mode. A symlink
// is followed: its target is what changes.
func WriteWithBackup(path string, data []byte) (backup string, err error) {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	old, err := ReadFileLimited(path, "a config file", maxConfigSize(path))
	if err != nil {
		return "", err
	}
	fi, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	backup = path + ".linesman-backup"
	if err := replaceFile(backup, old, 0o600); err != nil {
		return "", fmt.Errorf("writing the backup: %w", err)
	}
	removeNumberedBackups(path)
	return backup, replaceFile(path, data, fi.Mode().Perm())
}

// replaceFile writes data to path through a temporary file beside it and a
// rename, with mode perm.
func replaceFile(path string, data []byte, perm fs.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".linesman-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // after the rename, nothing to remove
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(perm); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// removeNumberedBackups removes path.linesman-backup-N, the backups
// earlier versions of linesman kept one more of at every wrap and unwrap.
func removeNumberedBackups(path string) {
	olds, _ := filepath.Glob(path + ".linesman-backup-*")
	for _, o := range olds {
		n := strings.TrimPrefix(o, path+".linesman-backup-")
		if n != "" && strings.Trim(n, "0123456789") == "" {
			os.Remove(o)
		}
	}
}
