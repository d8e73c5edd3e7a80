package hosts

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
)

// ConfigFiles reads the config files a command line names: config, read
// as host's (as its name says when host is ""), or else host's files in
// env that exist.
func ConfigFiles(host, config string, env Env) ([]*File, error) {
	var h Host
	if host != "" {
		var err error
		if h, err = ParseHost(host); err != nil {
			return nil, err
		}
	}
	if config != "" {
		f, err := Read(config, h)
		if err != nil {
			return nil, err
		}
		return []*File{f}, nil
	}
	if h == "" {
		return nil, errors.New("say which config: --host H or --config FILE")
	}
	var out []*File
	for _, loc := range DefaultLocations(h, env) {
		f, err := Read(loc.Path, h)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue
		case err != nil:
			return nil, err
		}
		out = append(out, f)
	}
	if len(out) == 0 {
		var paths []string
		for _, loc := range DefaultLocations(h, env) {
			paths = append(paths, loc.Path)
		}
		return nil, fmt.Errorf("no %s config found (looked at %s)", h, strings.Join(paths, ", "))
	}
	return out, nil
}
