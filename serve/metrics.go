package serve

import (
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/assaylabs/assay/agent"
	"github.com/assaylabs/assay/eval"
)

// Judgement outcomes, the outcome label of assay_judgements_total.
const (
	OutcomeScored    = "scored"
	OutcomeDefaulted = "defaulted"
	OutcomeSkipped   = "skipped"
	OutcomeError     = "error"
)

// Reasons a request is shed, the reason label of assay_shed_total.
const (
	ShedQueueFull = "queue_full" // 429: the trace queue has no room
	ShedBusy      = "busy"       // 503: MaxInFlight requests in flight
)

// metrics are the server's Prometheus metrics, in a registry of its own.
type metrics struct {
	reg        *prometheus.Registry
	requests   *prometheus.CounterVec
	latency    *prometheus.HistogramVec
	judgements *prometheus.CounterVec
	cost       *prometheus.CounterVec
	tokens     *prometheus.CounterVec
	shed       *prometheus.CounterVec
	panics     prometheus.Counter
	traces     *prometheus.CounterVec
	queueCap   prometheus.Gauge
	inFlight   prometheus.Gauge
	receiving  prometheus.Gauge
	// contextScored counts the context_quality scores scored, one per
	// /v1/context-score answered: its series found once, not per score.
	contextScored *lazyCounter
}

// lazyCounter is one series of a CounterVec, looked up at its first
// count, not at every count (a series appears in /metrics once counted,
// so it is not made before).
type lazyCounter struct {
	once   sync.Once
	c      prometheus.Counter
	vec    *prometheus.CounterVec
	labels []string
}

func newLazyCounter(vec *prometheus.CounterVec, labels ...string) *lazyCounter {
	return &lazyCounter{vec: vec, labels: labels}
}

// Inc adds 1 to the series.
func (l *lazyCounter) Inc() {
	l.once.Do(func() { l.c = l.vec.WithLabelValues(l.labels...) })
	l.c.Inc()
}

// newMetrics registers the metrics; depth reads the trace queue's depth
// when scraped.
func newMetrics(depth func() float64) *metrics {
	m := &metrics{
		reg: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "assay_http_requests_total",
			Help: "HTTP requests answered, by endpoint (method and route; unmatched for a path or method no route serves; forbidden, unauthorized or throttled for those the guards refused) and status code."}, []string{"endpoint", "code"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "assay_http_request_duration_seconds",
			Help:    "Time to answer an HTTP request, by endpoint.",
			Buckets: []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30}}, []string{"endpoint"}),
		judgements: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "assay_judgements_total",
			Help: "Judgements made (one per sample and metric), by metric and outcome: scored, defaulted (the judge failed: neutral default), skipped (nothing to judge) or error."}, []string{"metric", "outcome"}),
		cost: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "assay_judge_cost_usd_total",
			Help: "Model spending of judgements in US dollars, by metric (priced calls only)."}, []string{"metric"}),
		tokens: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "assay_judge_tokens_total",
			Help: "Model tokens of judgements, by metric and direction (in, out)."}, []string{"metric", "direction"}),
		shed: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "assay_shed_total",
			Help: "Requests refused for load, by endpoint and reason: queue_full (429) or busy (503)."}, []string{"endpoint", "reason"}),
		panics: prometheus.NewCounter(prometheus.CounterOpts{Name: "assay_panics_total",
			Help: "Handler panics recovered (each answered 500)."}),
		traces: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "assay_traces_total",
			Help: "Production samples received on /v1/traces, by decision: sampled (journaled and queued), not_sampled, duplicate (a trace id seen before), shed (refused with 429)."}, []string{"decision"}),
		queueCap: prometheus.NewGauge(prometheus.GaugeOpts{Name: "assay_trace_queue_capacity",
			Help: "Samples the trace queue holds at most."}),
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{Name: "assay_http_in_flight",
			Help: "API requests being answered."}),
		receiving: prometheus.NewGauge(prometheus.GaugeOpts{Name: "assay_http_receiving",
			Help: "API requests whose body is still arriving (each holds no place among the requests in flight until it has come)."}),
	}
	m.contextScored = newLazyCounter(m.judgements, agent.MetricContextQuality, OutcomeScored)
	m.reg.MustRegister(m.requests, m.latency, m.judgements, m.cost, m.tokens, m.shed, m.panics, m.traces, m.queueCap, m.inFlight, m.receiving,
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "assay_trace_queue_depth",
			Help: "Sampled traces journaled and not yet judged."}, depth),
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// judged counts one judgement.
func (m *metrics) judged(sc eval.Score) {
	if o := outcome(sc); sc.Metric == agent.MetricContextQuality && o == OutcomeScored {
		m.contextScored.Inc()
	} else {
		m.judgements.WithLabelValues(sc.Metric, o).Inc()
	}
	if u := sc.Usage; u.Calls > 0 {
		m.cost.WithLabelValues(sc.Metric).Add(u.CostUSD)
		m.tokens.WithLabelValues(sc.Metric, "in").Add(float64(u.TokensIn))
		m.tokens.WithLabelValues(sc.Metric, "out").Add(float64(u.TokensOut))
	}
}

// outcome is a score's outcome label.
func outcome(sc eval.Score) string {
	switch {
	case sc.Defaulted:
		return OutcomeDefaulted
	case sc.Skipped:
		return OutcomeSkipped
	}
	return OutcomeScored
}
