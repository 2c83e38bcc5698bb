package telemetry

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"math"
	"net/url"
	"os"
	"strconv"
	"strings"

	"golang.org/x/net/http/httpguts"
)

// checkSDKEnv checks the OTEL_* variables the SDK reads from the process
// environment on its own (see Setup), before it reads them: the SDK logs
// a value it cannot use in a line naming no command and goes on with its
// default (a sampler, a header carrying the collector's key, a CA file),
// echoing a header's value (a secret) as it does, or panics (a negative
// queue size). The error names each variable; a header's value is never
// in it.
func checkSDKEnv(env func(string) string) error {
	var errs []error
	bad := func(name, format string, a ...any) {
		errs = append(errs, fmt.Errorf("%s=%s: "+format, append([]any{name, strings.TrimSpace(env(name))}, a...)...))
	}
	checkSampler(env, bad)
	for _, name := range []string{"OTEL_EXPORTER_OTLP_TIMEOUT", "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT", "OTEL_BSP_SCHEDULE_DELAY"} {
		checkInt(env, bad, name, 1, "a number of milliseconds above 0")
	}
	checkInt(env, bad, "OTEL_BSP_EXPORT_TIMEOUT", 0, "a number of milliseconds, 0 for none")
	for _, name := range []string{"OTEL_BSP_MAX_QUEUE_SIZE", "OTEL_BSP_MAX_EXPORT_BATCH_SIZE"} {
		checkInt(env, bad, name, 1, "a number of spans above 0")
	}
	for _, name := range []string{"OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT", "OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT", "OTEL_SPAN_EVENT_COUNT_LIMIT",
		"OTEL_SPAN_LINK_COUNT_LIMIT", "OTEL_EVENT_ATTRIBUTE_COUNT_LIMIT", "OTEL_LINK_ATTRIBUTE_COUNT_LIMIT"} {
		checkInt(env, bad, name, math.MinInt, "a whole number (below 0 for no limit)")
	}
	for _, name := range []string{"OTEL_EXPORTER_OTLP_COMPRESSION", "OTEL_EXPORTER_OTLP_TRACES_COMPRESSION"} {
		if v := strings.TrimSpace(env(name)); v != "" && v != "gzip" && v != "none" {
			bad(name, "want gzip or none")
		}
	}
	for _, name := range []string{"OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_TRACES_HEADERS"} {
		if err := checkHeaders(env(name)); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", name, err)) // never the value: it holds keys
		}
	}
	errs = append(errs, checkCerts(env)...)
	return errors.Join(errs...)
}

// checkSampler checks OTEL_TRACES_SAMPLER and its argument.
func checkSampler(env func(string) string, bad func(name, format string, a ...any)) {
	const name, argName = "OTEL_TRACES_SAMPLER", "OTEL_TRACES_SAMPLER_ARG"
	sampler := strings.ToLower(strings.TrimSpace(env(name)))
	switch sampler {
	case "", "always_on", "always_off", "parentbased_always_on", "parentbased_always_off":
	case "traceidratio", "parentbased_traceidratio":
		if arg := strings.TrimSpace(env(argName)); arg != "" {
			if r, err := strconv.ParseFloat(arg, 64); err != nil || !(r >= 0 && r <= 1) {
				bad(argName, "want the share of traces to keep, a number from 0 to 1")
			}
		}
	default:
		bad(name, "want always_on, always_off, traceidratio, parentbased_always_on, parentbased_always_off or parentbased_traceidratio")
	}
}

// checkInt checks that the variable name, when set, is a whole number of
// at least least.
func checkInt(env func(string) string, bad func(name, format string, a ...any), name string, least int, want string) {
	v := strings.TrimSpace(env(name))
	if v == "" {
		return
	}
	if n, err := strconv.Atoi(v); err != nil || n < least {
		bad(name, "want %s", want)
	}
}

// checkHeaders checks a list of OTLP headers, key=value pairs separated
// by commas with each value percent-encoded, as the SDK reads it. Its
// error names a pair by its place and key, never by its value.
func checkHeaders(list string) error {
	if strings.TrimSpace(list) == "" {
		return nil
	}
	var errs []error
	for i, pair := range strings.Split(list, ",") {
		if strings.TrimSpace(pair) == "" {
			continue
		}
		k, v, ok := strings.Cut(pair, "=")
		k = strings.TrimSpace(k)
		switch {
		case !ok:
			errs = append(errs, fmt.Errorf("header %d has no '=': want key=value pairs separated by commas", i+1))
		case !httpguts.ValidHeaderFieldName(k):
			errs = append(errs, fmt.Errorf("header %d: its key is no HTTP header name", i+1))
		default:
			if _, err := url.PathUnescape(v); err != nil {
				errs = append(errs, fmt.Errorf("header %d (%s): its value is not percent-encoded as it must be (a %% not followed by two hex digits)", i+1, k))
			}
		}
	}
	return errors.Join(errs...)
}

// checkCerts checks the certificate files the variables name: a CA the
// SDK cannot read would be dropped for the system's roots, a client
// certificate for none.
func checkCerts(env func(string) string) []error {
	var errs []error
	for _, name := range []string{"OTEL_EXPORTER_OTLP_CERTIFICATE", "OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE"} {
		path := strings.TrimSpace(env(name))
		if path == "" {
			continue
		}
		b, err := os.ReadFile(path)
		if err == nil && !x509.NewCertPool().AppendCertsFromPEM(b) {
			err = errors.New("no PEM certificate in it")
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%s=%s: %w", name, path, err))
		}
	}
	for _, p := range [][2]string{{"OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE", "OTEL_EXPORTER_OTLP_CLIENT_KEY"},
		{"OTEL_EXPORTER_OTLP_TRACES_CLIENT_CERTIFICATE", "OTEL_EXPORTER_OTLP_TRACES_CLIENT_KEY"}} {
		cert, key := strings.TrimSpace(env(p[0])), strings.TrimSpace(env(p[1]))
		if cert == "" && key == "" {
			continue
		}
		if cert == "" || key == "" {
			errs = append(errs, fmt.Errorf("%s and %s: set both or neither", p[0], p[1]))
			continue
		}
		if err := clientPair(cert, key); err != nil {
			errs = append(errs, fmt.Errorf("%s=%s, %s=%s: %w", p[0], cert, p[1], key, err))
		}
	}
	return errs
}

// clientPair reads a client certificate and its key.
func clientPair(cert, key string) error {
	c, err := os.ReadFile(cert)
	if err != nil {
		return err
	}
	k, err := os.ReadFile(key)
	if err != nil {
		return err
	}
	if _, err := tls.X509KeyPair(c, k); err != nil {
		return errors.New("not a certificate and its private key in PEM")
	}
	return nil
}
