package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sync"
	"time"
)

// profilePiece is how long each CPU profile of the API server runs. The endpoint wants
// its length up front and the run's is unknown, so a run is profiled in pieces that
// `go tool pprof` merges when given them all.
const profilePiece = 5 * time.Second

// apiServerProfiler takes CPU profiles of the API server through its debug socket, one
// piece after another, until stopped. The socket is unauthenticated and outside the
// API server's handler chain, so profiling adds no request to the audit log that the
// harness counts.
type apiServerProfiler struct {
	client *http.Client
	piece  time.Duration
	// prefix is the path of the files without "-NNN.pprof".
	prefix   string
	stop     chan struct{}
	stopOnce sync.Once
	done     chan struct{}
	pieces   int
	err      error
}

// startAPIServerProfile profiles the API server listening on socket into prefix-000.pprof,
// prefix-001.pprof, ... until Stop.
func startAPIServerProfile(socket, prefix string, piece time.Duration) *apiServerProfiler {
	dialer := &net.Dialer{}
	p := &apiServerProfiler{
		client: &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return dialer.DialContext(ctx, "unix", socket)
		}}},
		piece:  piece,
		prefix: prefix,
		stop:   make(chan struct{}),
		done:   make(chan struct{}),
	}
	go p.run()
	return p
}

func (p *apiServerProfiler) run() {
	defer close(p.done)
	for {
		select {
		case <-p.stop:
			return
		default:
		}
		if p.err = p.takePiece(); p.err != nil {
			return
		}
	}
}

func (p *apiServerProfiler) takePiece() error {
	seconds := max(1, int(p.piece.Round(time.Second).Seconds()))
	resp, err := p.client.Get(fmt.Sprintf("http://apiserver/debug/pprof/profile?seconds=%d", seconds))
	if err != nil {
		return fmt.Errorf("profiling the API server: %w", err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("profiling the API server: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("profiling the API server: %s: %.200s", resp.Status, data)
	}
	path := fmt.Sprintf("%s-%03d.pprof", p.prefix, p.pieces)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return err
	}
	p.pieces++
	return nil
}

// Stop waits for the piece in progress, and returns how many were written. It may be
// called again, as a run that fails does on its way out.
func (p *apiServerProfiler) Stop() (int, error) {
	p.stopOnce.Do(func() { close(p.stop) })
	<-p.done
	return p.pieces, p.err
}
