package telemetry

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
)

// DefaultServiceName is the service.name of Assay's spans when neither
// OTEL_SERVICE_NAME nor OTEL_RESOURCE_ATTRIBUTES names one.
const DefaultServiceName = "assay"

// The variables Setup reads through env; the SDK reads the others
// (OTEL_TRACES_SAMPLER and its argument, OTEL_EXPORTER_OTLP_HEADERS,
// _TIMEOUT, _COMPRESSION, OTEL_RESOURCE_ATTRIBUTES, OTEL_BSP_*) from the
// process environment itself.
const (
	envDisabled       = "OTEL_SDK_DISABLED"
	envExporter       = "OTEL_TRACES_EXPORTER"
	envEndpoint       = "OTEL_EXPORTER_OTLP_ENDPOINT"
	envTracesEndpoint = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
	envProtocol       = "OTEL_EXPORTER_OTLP_PROTOCOL"
	envTracesProtocol = "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"
	envServiceName    = "OTEL_SERVICE_NAME"
)

// MaxAttributeLength is the most characters of a span attribute's value
// Setup's provider exports unless OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT
// says otherwise: the SDK's default is no limit, and a request's
// User-Agent or path (up to a megabyte of headers) would go to the
// collector whole.
const MaxAttributeLength = 4096

const envAttributeLength = "OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT"

// defaultEndpoint is the OTLP/HTTP traces endpoint of a collector on this
// machine, for OTEL_TRACES_EXPORTER=otlp with no endpoint given.
const defaultEndpoint = "http://localhost:4318/v1/traces"

// Setup turns tracing on when env (usually os.Getenv) asks for it: an
// OTLP endpoint in OTEL_EXPORTER_OTLP_TRACES_ENDPOINT (used as it is) or
// OTEL_EXPORTER_OTLP_ENDPOINT (/v1/traces appended), or
// OTEL_TRACES_EXPORTER=otlp (a collector on localhost:4318). It is off
// when OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none, and when no
// variable asks: then nothing is installed, the global provider stays the
// no-op one, and shutdown does nothing.
//
// On, it installs a tracer provider exporting in batches over OTLP/HTTP
// (http/protobuf, or http/json when OTEL_EXPORTER_OTLP_PROTOCOL says so),
// named OTEL_SERVICE_NAME (DefaultServiceName when unset), sampled as
// OTEL_TRACES_SAMPLER says (parent-based always-on when unset), with
// attribute values cut at MaxAttributeLength characters (unless
// OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT is set), and the
// W3C trace-context and baggage propagators. shutdown flushes the spans
// still held, within its context's deadline, and puts the previous
// provider and propagator back; call it once, before the process ends.
// Its error names the collector when the flush, or an export while the
// provider was on, failed (the SDK's handler would log those on their
// own, naming no collector).
//
// The error names the variable whose value cannot be used: an endpoint
// that is no http(s) URL, an exporter or protocol this build has not (it
// links OTLP over HTTP only, not gRPC), and those the SDK reads itself
// (a sampler, its ratio, a timeout, a batch size, a header list, a
// compression, a certificate file) with a value it would drop or fail
// on; a header's value (a key) is never in it.
func Setup(ctx context.Context, env func(string) string) (shutdown func(context.Context) error, err error) {
	off := func(context.Context) error { return nil }
	endpoint, on, err := endpointOf(env)
	if err != nil || !on {
		return off, err
	}
	opts := []otlptracehttp.Option{otlptracehttp.WithEndpointURL(endpoint)}
	switch name, p := protocolOf(env); p {
	case "", "http/protobuf":
	case "http/json":
		opts = append(opts, otlptracehttp.WithEncoding(otlptracehttp.EncodingJSON))
	default:
		return off, fmt.Errorf("%s=%s: assay exports traces over OTLP/HTTP: set http/protobuf (the default) or http/json, and point the endpoint at the collector's HTTP port (4318)", name, p)
	}
	if err := checkSDKEnv(env); err != nil {
		return off, err
	}
	exp, err := otlptracehttp.New(ctx, opts...)
	if err != nil {
		return off, fmt.Errorf("tracing: %w", err)
	}
	res, err := resourceOf(ctx, env)
	if err != nil { // only the variable's detector can fail
		return off, errors.Join(fmt.Errorf("OTEL_RESOURCE_ATTRIBUTES: want key=value pairs separated by commas, each value percent-encoded: %w", err), exp.Shutdown(ctx))
	}
	sdkErrors.start()
	limits := sdktrace.NewSpanLimits() // the SDK's, from OTEL_SPAN_*
	if strings.TrimSpace(env(envAttributeLength)) == "" {
		limits.AttributeValueLengthLimit = MaxAttributeLength
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res), sdktrace.WithRawSpanLimits(limits))
	prevTP, prevProp := otel.GetTracerProvider(), otel.GetTextMapPropagator()
	otel.SetTracerProvider(tp)
	otel.SetTextMapPropagator(Propagator())
	return func(ctx context.Context) error {
		otel.SetTracerProvider(prevTP)
		otel.SetTextMapPropagator(prevProp)
		err := tp.Shutdown(ctx)
		if err = errors.Join(err, sdkErrors.stop()); err != nil {
			return fmt.Errorf("the spans still held were not all sent to the collector at %s: %w", redacted(endpoint), err)
		}
		return nil
	}, nil
}

// redacted is endpoint with any password in it masked, and its query's
// values (a key, for some collectors), for messages.
func redacted(endpoint string) string {
	u, err := url.Parse(endpoint)
	if err != nil {
		return "(the endpoint)"
	}
	if u.RawQuery != "" {
		q := u.Query()
		for k := range q {
			q[k] = []string{"xxxxx"}
		}
		u.RawQuery = q.Encode()
	}
	return u.Redacted()
}

// Propagator is what Setup installs and Middleware reads: W3C trace
// context (traceparent, tracestate) and baggage.
func Propagator() propagation.TextMapPropagator {
	return propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})
}

// endpointOf is the traces endpoint env asks for, and whether it asks for
// one at all.
func endpointOf(env func(string) string) (endpoint string, on bool, err error) {
	if strings.EqualFold(strings.TrimSpace(env(envDisabled)), "true") {
		return "", false, nil
	}
	exporter := strings.ToLower(strings.TrimSpace(env(envExporter)))
	switch exporter {
	case "", "otlp":
	case "none":
		return "", false, nil
	default:
		return "", false, fmt.Errorf("%s=%s: assay exports traces with otlp (or none, for no traces)", envExporter, exporter)
	}
	name, v := envTracesEndpoint, strings.TrimSpace(env(envTracesEndpoint))
	if v == "" {
		name, v = envEndpoint, strings.TrimSpace(env(envEndpoint))
	}
	if v == "" {
		if exporter == "otlp" {
			return defaultEndpoint, true, nil
		}
		return "", false, nil
	}
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", false, fmt.Errorf("%s=%s: want the collector's http:// or https:// URL, such as http://localhost:4318", name, env(name))
	}
	if name == envEndpoint { // a base: the traces path goes on its path, before any query
		u.Path = strings.TrimRight(u.Path, "/") + "/v1/traces"
		u.RawPath = ""
		v = u.String()
	}
	return v, true, nil
}

// protocolOf is the OTLP protocol env names for traces, lower case, and
// the variable that names it.
func protocolOf(env func(string) string) (name, protocol string) {
	for _, name := range []string{envTracesProtocol, envProtocol} {
		if p := strings.TrimSpace(env(name)); p != "" {
			return name, strings.ToLower(p)
		}
	}
	return "", ""
}

// resourceOf describes this process: the SDK, OTEL_RESOURCE_ATTRIBUTES,
// and the service name.
func resourceOf(ctx context.Context, env func(string) string) (*resource.Resource, error) {
	opts := []resource.Option{
		resource.WithAttributes(semconv.ServiceName(DefaultServiceName)),
		resource.WithTelemetrySDK(),
		resource.WithFromEnv(),
	}
	if name := strings.TrimSpace(env(envServiceName)); name != "" {
		opts = append(opts, resource.WithAttributes(semconv.ServiceName(name)))
	}
	return resource.New(ctx, opts...)
}
