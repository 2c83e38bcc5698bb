package queue

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
)

// ServerConfig is an embedded NATS server with JetStream.
type ServerConfig struct {
	// StoreDir keeps JetStream's streams and buckets (a run's folder's
	// nats/): a server started again on it has them all.
	StoreDir string
	// Listen is HOST:PORT to listen on for remote workers; empty listens
	// nowhere, and only this process connects (Server.Connect).
	Listen string
	// Token, when set, is the token every client must give.
	Token string
}

// MaxPayload is the largest task an embedded server takes: a sample with
// its contexts, which can be well over NATS's default of 1 MB.
const MaxPayload = 16 << 20

// Server is an embedded NATS server.
type Server struct {
	ns  *server.Server
	cfg ServerConfig
}

// StartServer starts an embedded NATS server with JetStream on
// cfg.StoreDir and waits until it takes connections.
func StartServer(cfg ServerConfig) (*Server, error) {
	if cfg.StoreDir == "" {
		return nil, errors.New("queue: an embedded server needs a store folder")
	}
	opts := &server.Options{
		ServerName: "assay", JetStream: true, StoreDir: cfg.StoreDir, NoSigs: true, NoLog: true,
		MaxPayload: MaxPayload, MaxPending: 4 * MaxPayload, Authorization: cfg.Token,
	}
	if cfg.Listen == "" {
		opts.DontListen = true
	} else {
		host, port, err := net.SplitHostPort(cfg.Listen)
		if err != nil {
			return nil, fmt.Errorf("listen address %q: want HOST:PORT (127.0.0.1:4222): %w", cfg.Listen, err)
		}
		p, err := strconv.Atoi(port)
		if err != nil || p < -1 || p > 65535 {
			return nil, fmt.Errorf("listen address %q: the port is not a number from 0 to 65535", cfg.Listen)
		}
		opts.Host, opts.Port = host, p
	}
	ns, err := server.NewServer(opts)
	if err != nil {
		return nil, fmt.Errorf("queue: embedded NATS server: %w", err)
	}
	go ns.Start()
	if !ns.ReadyForConnections(30 * time.Second) {
		ns.Shutdown()
		ns.WaitForShutdown()
		return nil, fmt.Errorf("queue: the embedded NATS server on %s did not start (is the address in use?)", cmpOr(cfg.Listen, "no port"))
	}
	return &Server{ns: ns, cfg: cfg}, nil
}

// URL is where remote workers connect: nats://HOST:PORT, the port the
// server got when it was asked for 0 or -1; empty for a server that
// listens nowhere.
func (s *Server) URL() string {
	if s.cfg.Listen == "" {
		return ""
	}
	addr, ok := s.ns.Addr().(*net.TCPAddr)
	if !ok {
		return s.ns.ClientURL()
	}
	host, _, _ := net.SplitHostPort(s.cfg.Listen)
	if host == "" || host == "0.0.0.0" || host == "::" {
		host = "HOST" // the machine's name or address, as the workers reach it
	}
	return "nats://" + net.JoinHostPort(host, strconv.Itoa(addr.Port))
}

// Connect connects to the server in-process (no socket).
func (s *Server) Connect(name string) (*nats.Conn, error) {
	opts := clientOptions(name, s.cfg.Token)
	opts = append(opts, nats.InProcessServer(s.ns))
	nc, err := nats.Connect("", opts...)
	if err != nil {
		return nil, fmt.Errorf("queue: connecting to the embedded server: %w", err)
	}
	return nc, nil
}

// Close shuts the server down and waits until it is down; what it
// stored stays in StoreDir.
func (s *Server) Close() {
	s.ns.Shutdown()
	s.ns.WaitForShutdown()
}

// Dial connects to the NATS server at url (nats://HOST:4222), with token
// when it needs one. The connection reconnects for as long as it is open,
// so a NATS server restarted under a run loses it nothing.
func Dial(url, token, name string) (*nats.Conn, error) {
	nc, err := nats.Connect(url, clientOptions(name, token)...)
	if err != nil {
		return nil, fmt.Errorf("queue: connecting to %s: %w", url, err)
	}
	return nc, nil
}

func clientOptions(name, token string) []nats.Option {
	opts := []nats.Option{nats.Name(name), nats.MaxReconnects(-1), nats.ReconnectWait(250 * time.Millisecond),
		nats.RetryOnFailedConnect(false), nats.ReconnectBufSize(-1)}
	if token != "" {
		opts = append(opts, nats.Token(token))
	}
	return opts
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
