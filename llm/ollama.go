package llm

import (
	"net"
	"net/url"
	"strings"
)

// OllamaURL reads OLLAMA_HOST the way Ollama does: no scheme means http and
// port 11434; "http://h" means port 80 and "https://h" port 443; empty is
// http://127.0.0.1:11434. A path is kept, a trailing slash dropped.
func OllamaURL(host string) string {
	host = strings.TrimSpace(host)
	scheme, hostport, ok := strings.Cut(host, "://")
	port := "11434"
	switch {
	case !ok:
		scheme, hostport = "http", host
	case scheme == "http":
		port = "80"
	case scheme == "https":
		port = "443"
	}
	hostport, path, _ := strings.Cut(hostport, "/")
	h, p, err := net.SplitHostPort(hostport)
	if err != nil {
		h, p = strings.Trim(hostport, "[]"), port
		if h == "" {
			h = "127.0.0.1"
		}
	}
	u := url.URL{Scheme: scheme, Host: net.JoinHostPort(h, p), Path: strings.TrimRight("/"+path, "/")}
	return u.String()
}
