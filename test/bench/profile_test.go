package main

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"
)

// A run is profiled in pieces until stopped, each piece a file, and a piece in progress
// when the run ends is still written.
func TestAPIServerProfileIsWrittenInPieces(t *testing.T) {
	var served atomic.Int32
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/profile", func(w http.ResponseWriter, r *http.Request) {
		if got := r.URL.Query().Get("seconds"); got != "1" {
			t.Errorf("seconds=%s, want 1", got)
		}
		n := served.Add(1)
		time.Sleep(20 * time.Millisecond)
		fmt.Fprint(w, n)
	})
	dir, socket := serveOnSocket(t, mux)
	p := startAPIServerProfile(socket, filepath.Join(dir, "gatewright"), time.Second)
	for served.Load() < 3 {
		time.Sleep(5 * time.Millisecond)
	}
	pieces, err := p.Stop()
	if err != nil {
		t.Fatal(err)
	}
	if again, err := p.Stop(); again != pieces || err != nil {
		t.Fatalf("Stop again = %d, %v; want %d, nil", again, err, pieces)
	}
	if pieces < 3 || pieces != int(served.Load()) {
		t.Fatalf("%d pieces written, %d served", pieces, served.Load())
	}
	for i := range pieces {
		data, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("gatewright-%03d.pprof", i)))
		if err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprint(i + 1); string(data) != want {
			t.Errorf("piece %d holds %q, want %q", i, data, want)
		}
	}
}

// A profile the API server refuses ends the profiling with its answer, not a file.
func TestAPIServerProfileReportsARefusal(t *testing.T) {
	dir, socket := serveOnSocket(t, http.NotFoundHandler())
	p := startAPIServerProfile(socket, filepath.Join(dir, "floor"), time.Second)
	<-p.done
	pieces, err := p.Stop()
	if err == nil || pieces != 0 {
		t.Fatalf("Stop() = %d, %v; want 0 pieces and the refusal", pieces, err)
	}
	if files, _ := filepath.Glob(filepath.Join(dir, "*.pprof")); len(files) != 0 {
		t.Errorf("files written for a refused profile: %v", files)
	}
}

// serveOnSocket serves handler on a unix socket in a new folder until the test ends,
// and returns the folder and the socket.
func serveOnSocket(t *testing.T, handler http.Handler) (dir, socket string) {
	t.Helper()
	dir = t.TempDir()
	socket = filepath.Join(dir, "apiserver.sock")
	listener, err := net.Listen("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	server := &http.Server{Handler: handler}
	go func() { _ = server.Serve(listener) }()
	t.Cleanup(func() { _ = server.Close() })
	return dir, socket
}
