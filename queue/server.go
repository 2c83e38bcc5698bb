package queue

import (
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/cenkalti/backoff/v4"
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

// DialRetry is Dial for a process that may start before its server (a
// worker started before its coordinator listens): when no server answers
// it does not fail but tries again with backoff (250ms doubling to 5s,
// for ever), saying so on log, and says when it is connected. It fails at
// once only for a URL that does not read. Open waits until the
// connection is made (or its context ends), and fails if the server
// turned the client away (a wrong token) and the connection closed.
func DialRetry(url, token, name string, log io.Writer) (*nats.Conn, error) {
	r := &redial{url: url, log: log}
	r.b = backoff.NewExponentialBackOff()
	r.b.InitialInterval, r.b.MaxInterval, r.b.MaxElapsedTime = 250*time.Millisecond, 5*time.Second, 0
	r.b.Reset()
	opts := append(clientOptions(name, token), nats.RetryOnFailedConnect(true), nats.CustomReconnectDelay(r.delay),
		nats.ReconnectErrHandler(r.failed), nats.ConnectHandler(r.connected), nats.ReconnectHandler(r.connected), nats.DisconnectErrHandler(r.lost))
	nc, err := nats.Connect(url, opts...)
	if err != nil {
		return nil, fmt.Errorf("queue: connecting to %s: %w", url, err)
	}
	return nc, nil
}

// redial says what a connection that retries does.
type redial struct {
	url string
	log io.Writer

	mu   sync.Mutex
	b    *backoff.ExponentialBackOff
	down bool // said the server is not there, and not yet that it is
	wait time.Duration
}

// delay is the wait before the next round of attempts.
func (r *redial) delay(attempts int) time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	if attempts <= 1 {
		r.b.Reset()
	}
	r.wait = r.b.NextBackOff()
	return r.wait
}

func (r *redial) failed(_ *nats.Conn, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.down {
		return
	}
	r.down = true
	fmt.Fprintf(r.log, "worker: the NATS server at %s does not answer (%v); trying again with backoff (250ms doubling to 5s) until it does\n", r.url, err)
}

func (r *redial) connected(*nats.Conn) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.down {
		r.down = false
		fmt.Fprintf(r.log, "worker: connected to the NATS server at %s\n", r.url)
	}
}

func (r *redial) lost(_ *nats.Conn, err error) {
	if err == nil {
		return // closed by us
	}
	fmt.Fprintf(r.log, "worker: lost the NATS server at %s (%v); reconnecting with backoff (250ms doubling to 5s)\n", r.url, err)
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
