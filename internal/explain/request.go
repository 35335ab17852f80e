package explain

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gatewright/gatewright/internal/routing"
)

// Explanation is the answer for a request on one Gateway (explain request), as `-o json`
// prints it: the request read from a URL and flags, the Gateway a client reaches, and
// the answer the route table gives (internal/routing.Serve).
type Explanation struct {
	Gateway GatewayRef `json:"gateway"`
	routing.Answer
}

// GatewayRef names the Gateway that answers.
type GatewayRef struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
}

// Answer is what gw, whose route table is table, does with req.
func Answer(gw *gatewayv1.Gateway, table *routing.Table, req routing.Request) Explanation {
	return Explanation{Gateway: GatewayRef{Namespace: gw.Namespace, Name: gw.Name}, Answer: routing.Serve(table, req)}
}

// ParseRequest reads a request from a URL (scheme://host[:port]/path?query; the port
// defaults to 80 for http and 443 for https), a method (GET when empty) and headers as
// curl's -H takes them ("Name: value").
func ParseRequest(rawURL, method string, headers []string) (routing.Request, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return routing.Request{}, fmt.Errorf("URL %q: %w", rawURL, err)
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" {
		return routing.Request{}, fmt.Errorf("URL %q: the scheme must be http or https", rawURL)
	}
	if u.Hostname() == "" {
		return routing.Request{}, fmt.Errorf("URL %q has no host", rawURL)
	}
	port := int32(80)
	if scheme == "https" {
		port = 443
	}
	if p := u.Port(); p != "" {
		n, err := strconv.ParseUint(p, 10, 16)
		if err != nil || n == 0 {
			return routing.Request{}, fmt.Errorf("URL %q: port %q is not a port number", rawURL, p)
		}
		port = int32(n)
	}
	path := u.EscapedPath()
	if path == "" {
		path = "/"
	}
	if u.RawQuery != "" {
		path += "?" + u.RawQuery
	}
	req := routing.Request{Method: strings.ToUpper(method), Scheme: scheme, Host: strings.ToLower(u.Hostname()), Port: port, Path: path, Headers: http.Header{}}
	if req.Method == "" {
		req.Method = http.MethodGet
	}
	for _, h := range headers {
		name, value, ok := strings.Cut(h, ":")
		if !ok || strings.TrimSpace(name) == "" {
			return routing.Request{}, fmt.Errorf("header %q: give it as 'Name: value'", h)
		}
		req.Headers.Add(strings.TrimSpace(name), strings.TrimSpace(value))
	}
	return req, nil
}

// ChoiceError says that the Gateway could not be chosen and which flag chooses it.
type ChoiceError struct{ Message string }

func (e *ChoiceError) Error() string { return e.Message }

// Choose picks, among gateways (those of Gatewright classes), the one a client reaches
// with req: the one whose status.addresses holds address when it is given, else the only
// one with a listener on req's port whose hostname matches req's Host.
func Choose(gateways []gatewayv1.Gateway, req routing.Request, address string) (*gatewayv1.Gateway, error) {
	var found []*gatewayv1.Gateway
	for i := range gateways {
		gw := &gateways[i]
		if address != "" && hasAddress(gw, address) || address == "" && listensFor(gw, req) {
			found = append(found, gw)
		}
	}
	if len(found) == 1 {
		return found[0], nil
	}
	names := make([]string, len(found))
	for i, gw := range found {
		names[i] = gw.Namespace + "/" + gw.Name
	}
	switch {
	case address != "" && len(found) == 0:
		return nil, &ChoiceError{fmt.Sprintf("no Gateway of a Gatewright class has the address %s in its status: name it with --gateway NAMESPACE/NAME", address)}
	case address != "":
		return nil, &ChoiceError{fmt.Sprintf("several Gateways have the address %s (%s): name one with --gateway NAMESPACE/NAME", address, strings.Join(names, ", "))}
	case len(found) == 0:
		return nil, &ChoiceError{fmt.Sprintf("no Gateway of a Gatewright class has a listener on port %d for %s: name it with --gateway NAMESPACE/NAME or --address HOST", req.Port, req.Host)}
	}
	return nil, &ChoiceError{fmt.Sprintf("%d Gateways have a listener on port %d for %s (%s): choose with --gateway NAMESPACE/NAME or --address HOST", len(found), req.Port, req.Host, strings.Join(names, ", "))}
}

// hasAddress tells whether gw's status lists address; an address given with a port
// matches on its host.
func hasAddress(gw *gatewayv1.Gateway, address string) bool {
	if host, _, err := net.SplitHostPort(address); err == nil {
		address = host
	}
	return slices.ContainsFunc(gw.Status.Addresses, func(a gatewayv1.GatewayStatusAddress) bool {
		return strings.EqualFold(a.Value, address)
	})
}

// listensFor tells whether gw has a listener on req's port whose hostname matches.
func listensFor(gw *gatewayv1.Gateway, req routing.Request) bool {
	return slices.ContainsFunc(gw.Spec.Listeners, func(l gatewayv1.Listener) bool {
		if int32(l.Port) != req.Port {
			return false
		}
		if l.Hostname == nil || *l.Hostname == "" {
			return true
		}
		hostname := strings.ToLower(string(*l.Hostname))
		if suffix, ok := strings.CutPrefix(hostname, "*"); ok {
			return len(req.Host) > len(suffix) && strings.HasSuffix(req.Host, suffix)
		}
		return hostname == req.Host
	})
}
