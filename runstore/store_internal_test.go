package runstore

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestDataDir(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		goos string
		env  map[string]string
		want string
		err  string
	}{
		"linux: XDG_DATA_HOME":                       {goos: "linux", env: map[string]string{"XDG_DATA_HOME": "/x/data", "HOME": "/home/u"}, want: "/x/data"},
		"linux: a relative XDG_DATA_HOME is ignored": {goos: "linux", env: map[string]string{"XDG_DATA_HOME": "rel", "HOME": "/home/u"}, want: filepath.Join("/home/u", ".local", "share")},
		"freebsd: ~/.local/share":                    {goos: "freebsd", env: map[string]string{"HOME": "/home/u"}, want: filepath.Join("/home/u", ".local", "share")},
		"linux: nothing set":                         {goos: "linux", err: "neither $XDG_DATA_HOME nor $HOME is set"},
		"macOS: Application Support":                 {goos: "darwin", env: map[string]string{"HOME": "/Users/u", "XDG_DATA_HOME": "/ignored"}, want: filepath.Join("/Users/u", "Library", "Application Support")},
		"windows: LOCALAPPDATA":                      {goos: "windows", env: map[string]string{"LOCALAPPDATA": `C:\Users\u\AppData\Local`, "APPDATA": "roaming"}, want: `C:\Users\u\AppData\Local`},
		"windows: APPDATA when no LOCALAPPDATA":      {goos: "windows", env: map[string]string{"APPDATA": "roaming"}, want: "roaming"},
		"windows: nothing set":                       {goos: "windows", err: "neither %LOCALAPPDATA% nor %APPDATA% is set"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, err := dataDir(tc.goos, func(k string) string { return tc.env[k] })
			if tc.err != "" {
				assert.EqualError(t, err, tc.err)
				return
			}
			assert.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}
