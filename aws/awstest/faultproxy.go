package awstest

import (
	"bytes"
	"context"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"time"
)

// Chaos says how a FaultProxy misbehaves: each rate is the probability, per request, of one
// kind of trouble, drawn from a generator seeded with Seed.
type Chaos struct {
	Seed uint64
	// Delay holds the reply for up to MaxDelay.
	Delay float64
	// Reorder holds the reply until a later request's reply has gone out (or MaxDelay
	// passed), so that replies overtake each other.
	Reorder float64
	// Drop lets the request reach the service and loses its reply: the connection closes
	// without one, as when the client's deadline passes. The SDK retries.
	Drop float64
	// Duplicate lets the request reach the service twice (a replayed request) and answers
	// with the second reply.
	Duplicate float64
	// MaxDelay bounds Delay and Reorder (1 ms when zero).
	MaxDelay time.Duration
}

// FaultProxy is a loopback HTTP proxy in front of one service endpoint (a server of this
// package, or any other implementation of the AWS protocols) that delays, reorders, drops and
// duplicates replies at random. It is safe for concurrent use.
type FaultProxy struct {
	*httptest.Server
	target *url.URL
	client *http.Client

	mu     sync.Mutex
	chaos  Chaos
	rng    *rand.Rand
	served []string
	// wrote is closed and replaced whenever a reply goes out (reordered replies wait on it).
	wrote chan struct{}
	// onReply, when set, runs before each reply is written (or dropped).
	onReply func(action string)

	inFlight sync.WaitGroup
}

// NewFaultProxy starts a proxy on 127.0.0.1 in front of target (a base URL such as an
// EC2Server's). Close it when done.
func NewFaultProxy(target string, chaos Chaos) *FaultProxy {
	u, err := url.Parse(target)
	if err != nil {
		panic("awstest: fault proxy target: " + err.Error())
	}
	p := &FaultProxy{target: u, client: &http.Client{Transport: &http.Transport{}}, wrote: make(chan struct{})}
	p.SetChaos(chaos)
	p.Server = newLoopbackServer(http.HandlerFunc(p.serve))
	return p
}

// SetChaos changes the rates and seeds the generator with chaos.Seed.
func (p *FaultProxy) SetChaos(chaos Chaos) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if chaos.MaxDelay <= 0 {
		chaos.MaxDelay = time.Millisecond
	}
	p.chaos, p.rng = chaos, rand.New(rand.NewPCG(chaos.Seed, chaos.Seed^0x9e3779b97f4a7c15))
}

// OnReply makes f run before each reply is written or dropped, with the request's action (a
// test cancels a caller there: the service acted, the caller gives up before the answer).
// Nil removes it.
func (p *FaultProxy) OnReply(f func(action string)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.onReply = f
}

// Served lists the troubles served so far as "Action:Delay", ":Reorder", ":Drop" or
// ":Duplicate", in order.
func (p *FaultProxy) Served() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.served...)
}

// Idle waits until no request is in the proxy: every request that reached it has been
// answered, dropped or abandoned by its client, and the service has seen everything it will.
func (p *FaultProxy) Idle() { p.inFlight.Wait() }

// Close stops the proxy after the requests in it are done.
func (p *FaultProxy) Close() {
	p.Server.Close()
	p.Idle()
	p.client.CloseIdleConnections()
}

// fate is what happens to one request.
type fate struct {
	delay              time.Duration
	reorder, drop, dup bool
	onReply            func(string)
	maxDelay           time.Duration
}

func (p *FaultProxy) draw(action string) fate {
	p.mu.Lock()
	defer p.mu.Unlock()
	c := p.chaos
	var f fate
	// Draw all four every time, so that a sequence of requests sees the same fates for the
	// same seed whatever the rates.
	delay, reorder, drop, dup, amount := p.rng.Float64(), p.rng.Float64(), p.rng.Float64(), p.rng.Float64(), p.rng.Float64()
	if delay < c.Delay {
		f.delay = time.Duration(amount * float64(c.MaxDelay))
		p.served = append(p.served, action+":Delay")
	}
	if f.reorder = reorder < c.Reorder; f.reorder {
		p.served = append(p.served, action+":Reorder")
	}
	if f.drop = drop < c.Drop; f.drop {
		p.served = append(p.served, action+":Drop")
	}
	if f.dup = dup < c.Duplicate; f.dup {
		p.served = append(p.served, action+":Duplicate")
	}
	f.onReply, f.maxDelay = p.onReply, c.MaxDelay
	return f
}

func (p *FaultProxy) serve(w http.ResponseWriter, r *http.Request) {
	p.inFlight.Add(1)
	defer p.inFlight.Done()
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	action := actionOf(r, body)
	f := p.draw(action)
	// The service finishes what it was asked even when the client has gone.
	ctx := context.WithoutCancel(r.Context())
	rep, err := p.forward(ctx, r, body)
	if err == nil && f.dup {
		rep, err = p.forward(ctx, r, body)
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	if f.onReply != nil {
		f.onReply(action)
	}
	if f.drop {
		if hj, ok := w.(http.Hijacker); ok {
			if conn, _, err := hj.Hijack(); err == nil {
				_ = conn.Close()
				return
			}
		}
	}
	if f.delay > 0 {
		sleep(r.Context(), f.delay)
	}
	if f.reorder {
		p.mu.Lock()
		later := p.wrote
		p.mu.Unlock()
		select {
		case <-later:
		case <-r.Context().Done():
		case <-time.After(f.maxDelay):
		}
	}
	for k, vs := range rep.header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	w.WriteHeader(rep.status)
	_, _ = w.Write(rep.body)
	p.mu.Lock()
	close(p.wrote)
	p.wrote = make(chan struct{})
	p.mu.Unlock()
}

func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// upstreamReply is the service's answer to one forwarded request.
type upstreamReply struct {
	status int
	header http.Header
	body   []byte
}

func (p *FaultProxy) forward(ctx context.Context, r *http.Request, body []byte) (upstreamReply, error) {
	u := *p.target
	u.Path, u.RawQuery = strings.TrimSuffix(u.Path, "/")+r.URL.Path, r.URL.RawQuery
	req, err := http.NewRequestWithContext(ctx, r.Method, u.String(), bytes.NewReader(body))
	if err != nil {
		return upstreamReply{}, err
	}
	for k, vs := range r.Header {
		req.Header[k] = append([]string(nil), vs...)
	}
	resp, err := p.client.Do(req)
	if err != nil {
		return upstreamReply{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return upstreamReply{}, err
	}
	h := resp.Header.Clone()
	h.Del("Content-Length")
	return upstreamReply{status: resp.StatusCode, header: h, body: b}, nil
}

// actionOf names the operation of a request: the X-Amz-Target suffix of the JSON
// protocols, or the Action of a query-protocol form.
func actionOf(r *http.Request, body []byte) string {
	if t := r.Header.Get("X-Amz-Target"); t != "" {
		return t[strings.LastIndex(t, ".")+1:]
	}
	if form, err := url.ParseQuery(string(body)); err == nil {
		return form.Get("Action")
	}
	return ""
}
