// Command image builds the controller's container image without a container engine, as
// an OCI archive (`make image`), or writes the image's filesystem into a folder for the
// Dockerfile to copy onto scratch (-rootfs).
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "image:", err)
		os.Exit(1)
	}
}

func run() error {
	binary := flag.String("binary", "", "the static linux gatewright binary to put into the image")
	arch := flag.String("arch", runtime.GOARCH, "the binary's GOARCH")
	version := flag.String("version", "dev", "the org.opencontainers.image.version label: what the binary's --version says")
	commit := flag.String("commit", "unknown", "the org.opencontainers.image.revision label")
	epoch := flag.String("created", os.Getenv("SOURCE_DATE_EPOCH"), "the image's creation time in seconds since 1970 (the commit's time, for a reproducible digest; default $SOURCE_DATE_EPOCH)")
	tag := flag.String("tag", "ghcr.io/gatewright/gatewright:dev", "the image's name in the archive")
	out := flag.String("o", "", "the OCI archive to write")
	rootfs := flag.String("rootfs", "", "instead of an archive, write the image's files but the binary into this folder")
	flag.Parse()

	if *rootfs != "" {
		return writeRootFS(*rootfs, withoutBinary(rootFS(nil)))
	}
	if *binary == "" || *out == "" || *epoch == "" {
		return errors.New("-binary, -o and -created (or SOURCE_DATE_EPOCH) are required")
	}
	seconds, err := strconv.ParseInt(*epoch, 10, 64)
	if err != nil {
		return fmt.Errorf("-created: %w", err)
	}
	ref, err := name.NewTag(*tag, name.StrictValidation)
	if err != nil {
		return fmt.Errorf("-tag: %w", err)
	}
	data, err := os.ReadFile(*binary)
	if err != nil {
		return err
	}
	created := time.Unix(seconds, 0)
	img, err := build(spec{binary: data, arch: *arch, version: *version, commit: *commit, created: created})
	if err != nil {
		return err
	}
	var archive bytes.Buffer
	if err := writeArchive(&archive, img, ref, created); err != nil {
		return err
	}
	if err := os.WriteFile(*out, archive.Bytes(), 0o644); err != nil {
		return err
	}
	digest, err := img.Digest()
	if err != nil {
		return err
	}
	fmt.Printf("Wrote %s: %s@%s\n", *out, ref.Name(), digest)
	return nil
}

// withoutBinary leaves out the binary, which the Dockerfile builds in its own stage.
func withoutBinary(files []file) []file {
	var out []file
	for _, f := range files {
		if f.path != binaryPath {
			out = append(out, f)
		}
	}
	return out
}
