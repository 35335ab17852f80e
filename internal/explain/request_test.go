package explain

import (
	"strconv"
	"testing"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/yaml"
)

func TestParseRequestReadsURLMethodAndHeaders(t *testing.T) {
	tests := []struct {
		name    string
		url     string
		method  string
		headers []string
		want    string // method scheme host port path
		wantErr string
	}{
		{name: "http defaults to port 80 and GET", url: "http://Shop.Example/cart?x=1", want: "GET http shop.example 80 /cart?x=1"},
		{name: "https defaults to port 443", url: "https://shop.example", method: "post", want: "POST https shop.example 443 /"},
		{name: "a port in the URL selects the listener", url: "http://shop.example:8080/a%20b", want: "GET http shop.example 8080 /a%20b"},
		{name: "another scheme is refused", url: "ftp://shop.example/", wantErr: `URL "ftp://shop.example/": the scheme must be http or https`},
		{name: "a header without a colon is refused", url: "http://shop.example/", headers: []string{"X-Nope"}, wantErr: `header "X-Nope": give it as 'Name: value'`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := ParseRequest(tt.url, tt.method, tt.headers)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := req.Method + " " + req.Scheme + " " + req.Host + " " + strconv.Itoa(int(req.Port)) + " " + req.Path
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
	req, err := ParseRequest("http://x/", "", []string{"X-A: 1", "x-a: 2"})
	if err != nil || len(req.Headers.Values("X-A")) != 2 {
		t.Errorf("repeated headers %v (%v), want two values of X-A", req.Headers, err)
	}
}

const chooseGateways = `
- metadata: {namespace: a, name: web}
  spec:
    gatewayClassName: c
    listeners: [{name: http, protocol: HTTP, port: 80, hostname: "*.a.example"}]
  status: {addresses: [{value: 192.0.2.1}]}
- metadata: {namespace: b, name: web}
  spec:
    gatewayClassName: c
    listeners: [{name: http, protocol: HTTP, port: 80}]
  status: {addresses: [{value: 192.0.2.2}]}
- metadata: {namespace: c, name: alt}
  spec:
    gatewayClassName: c
    listeners: [{name: http, protocol: HTTP, port: 8080, hostname: alt.example}]
  status: {addresses: [{value: 192.0.2.2}]}
`

func TestChooseFindsTheGatewayAClientReaches(t *testing.T) {
	var gateways []gatewayv1.Gateway
	if err := yaml.UnmarshalStrict([]byte(chooseGateways), &gateways); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, url, address, want, wantErr string
	}{
		{name: "the address in a Gateway's status", url: "http://shop.a.example/", address: "192.0.2.1", want: "a/web"},
		{name: "an address with a port", url: "http://shop.a.example/", address: "192.0.2.1:80", want: "a/web"},
		{name: "the only Gateway with a listener for the port and host", url: "http://alt.example:8080/", want: "c/alt"},
		{name: "two Gateways listen for the host", url: "http://shop.a.example/",
			wantErr: "2 Gateways have a listener on port 80 for shop.a.example (a/web, b/web): choose with --gateway NAMESPACE/NAME or --address HOST"},
		{name: "two Gateways share an address", url: "http://x/", address: "192.0.2.2",
			wantErr: "several Gateways have the address 192.0.2.2 (b/web, c/alt): name one with --gateway NAMESPACE/NAME"},
		{name: "no Gateway for the port", url: "http://x:9000/",
			wantErr: "no Gateway of a Gatewright class has a listener on port 9000 for x: name it with --gateway NAMESPACE/NAME or --address HOST"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := ParseRequest(tt.url, "", nil)
			if err != nil {
				t.Fatal(err)
			}
			gw, err := Choose(gateways, req, tt.address)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := gw.Namespace + "/" + gw.Name; got != tt.want {
				t.Errorf("chose %s, want %s", got, tt.want)
			}
		})
	}
}
