//go:build conformance

package conformance

import (
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/gateway-api/conformance/utils/roundtripper"

	"github.com/gatewright/gatewright/internal/explain"
	"github.com/gatewright/gatewright/internal/routing"
	"github.com/gatewright/gatewright/internal/snapshot"
)

// answeringRoundTripper stands in for the suite's HTTP client in request mode: it
// answers each request as `gatewright explain request` does, from the Gateway's route
// table read from the API server, so that the suite's traffic assertions judge the
// routing rules Gatewright computes for templates (.RouteTable) without a data plane.
// The backend is the suite's echo server, played here: it echoes the request it
// receives, names a Pod of the chosen Service, and sets the response headers that
// X-Echo-Set-Header asks for.
type answeringRoundTripper struct {
	client client.Client
}

func (a *answeringRoundTripper) CaptureRoundTrip(r roundtripper.Request) (*roundtripper.CapturedRequest, *roundtripper.CapturedResponse, error) {
	ctx := r.T.Context()
	req, address, err := routingRequest(r)
	if err != nil {
		return nil, nil, err
	}
	g := &snapshot.Gatherer{Reader: a.client, AsRecorded: true, Rights: &snapshot.Rights{}, ServesListenerSets: true}
	gateways, err := g.GatewrightGateways(ctx, "")
	if err != nil {
		return nil, nil, err
	}
	gw, err := explain.Choose(gateways, req, address)
	if err != nil {
		return nil, nil, err
	}
	class, err := g.GatewrightClass(ctx, gw)
	if err != nil {
		return nil, nil, err
	}
	snap, err := g.Gateway(ctx, gw, class, snapshot.RouteTableOnly())
	if err != nil {
		return nil, nil, err
	}
	table, _ := snap.RouteTable()
	answer := explain.Answer(gw, table, req)
	res := &roundtripper.CapturedResponse{StatusCode: answer.Response.Status, Protocol: "HTTP/1.1", Headers: map[string][]string{}}
	for name, value := range answer.Response.Headers {
		res.Headers[name] = []string{value}
	}
	if loc := answer.Response.Headers["Location"]; loc != "" {
		u, err := url.Parse(loc)
		if err != nil {
			return nil, nil, err
		}
		res.RedirectRequest = &roundtripper.RedirectRequest{Scheme: u.Scheme, Host: u.Hostname(), Port: u.Port(), Path: u.Path}
	}
	if len(answer.Backends) == 0 {
		// No echo server answered: as the suite's own round tripper, take the request
		// for made as asked.
		return &roundtripper.CapturedRequest{Method: req.Method}, res, nil
	}
	backend := pickByWeight(answer.Backends)
	fwd := answer.Request
	if backend.Request != nil {
		fwd = *backend.Request
	}
	pod, err := a.podOf(r, backend)
	if err != nil {
		return nil, nil, err
	}
	echoResponseHeaders(res.Headers, fwd.Headers, answer.Response.HeaderModifier)
	return &roundtripper.CapturedRequest{Path: fwd.Path, Host: fwd.Host, Method: fwd.Method, Protocol: "HTTP/1.1",
		Headers: fwd.Headers, Namespace: backend.Namespace, Pod: pod}, res, nil
}

// routingRequest is the suite's request as explain request takes it: the Host header's
// host, else the URL's, on the port the URL dials; and the address the URL dials.
func routingRequest(r roundtripper.Request) (routing.Request, string, error) {
	target := r.URL
	if r.Host != "" {
		// The Host header names the host; the port is the one the URL dials.
		host := r.Host
		if h, _, err := net.SplitHostPort(r.Host); err == nil {
			host = h
		}
		target.Host = host
		if port := r.URL.Port(); port != "" {
			target.Host = net.JoinHostPort(host, port)
		}
	}
	headers := make([]string, 0, len(r.Headers))
	for name, values := range r.Headers {
		for _, v := range values {
			headers = append(headers, name+": "+v)
		}
	}
	req, err := explain.ParseRequest(target.String(), r.Method, headers)
	req.Authority = r.Host
	return req, r.URL.Hostname(), err
}

// pickByWeight chooses a backend as a proxy does: at random, in proportion to weight.
func pickByWeight(backends []routing.BackendAnswer) routing.BackendAnswer {
	var total int32
	for _, b := range backends {
		total += b.Weight
	}
	n := rand.Int32N(total)
	for _, b := range backends {
		if n < b.Weight {
			return b
		}
		n -= b.Weight
	}
	return backends[len(backends)-1]
}

// podOf names a Pod the backend's Service selects, as the echo server reports its own.
func (a *answeringRoundTripper) podOf(r roundtripper.Request, b routing.BackendAnswer) (string, error) {
	var svc corev1.Service
	if err := a.client.Get(r.T.Context(), client.ObjectKey{Namespace: b.Namespace, Name: b.Name}, &svc); err != nil {
		return "", err
	}
	var pods corev1.PodList
	if err := a.client.List(r.T.Context(), &pods, client.InNamespace(b.Namespace), client.MatchingLabels(svc.Spec.Selector)); err != nil {
		return "", err
	}
	if len(pods.Items) == 0 {
		return "", fmt.Errorf("no Pod behind Service %s/%s", b.Namespace, b.Name)
	}
	return pods.Items[0].Name, nil
}

// echoResponseHeaders sets on headers what the echo backend answers (the
// "name:value,..." of X-Echo-Set-Header), changed by the Gateway's
// ResponseHeaderModifier.
func echoResponseHeaders(headers map[string][]string, request http.Header, changes routing.HeaderChanges) {
	h := http.Header{}
	for _, pair := range strings.Split(request.Get("X-Echo-Set-Header"), ",") {
		if name, value, ok := strings.Cut(pair, ":"); ok {
			h.Add(strings.TrimSpace(name), strings.TrimSpace(value))
		}
	}
	for name, value := range changes.Set {
		h.Set(name, value)
	}
	for name, value := range changes.Add {
		for _, v := range strings.Split(value, ",") {
			h.Add(name, v)
		}
	}
	for _, name := range changes.Remove {
		h.Del(name)
	}
	for name, values := range h {
		headers[name] = values
	}
}
