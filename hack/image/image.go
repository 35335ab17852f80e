package main

import (
	"archive/tar"
	"bytes"
	"io"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// The OCI labels that say which build an image is.
const (
	labelVersion  = "org.opencontainers.image.version"
	labelRevision = "org.opencontainers.image.revision"
	labelSource   = "org.opencontainers.image.source"
)

// spec is what one image is built from. Everything in the image follows from it, so two
// builds from one spec have one digest.
type spec struct {
	binary  []byte // a static linux binary
	arch    string // its GOARCH
	version string // git describe, as the binary's --version says
	commit  string
	created time.Time // the commit's time, or SOURCE_DATE_EPOCH
}

// build makes the image: scratch, one layer with rootFS, run as the nonroot user.
func build(s spec) (v1.Image, error) {
	layerTar, err := tarOf(rootFS(s.binary), s.created)
	if err != nil {
		return nil, err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(layerTar)), nil
	}, tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return nil, err
	}
	created := v1.Time{Time: s.created.UTC()}
	img := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	img, err = mutate.Append(img, mutate.Addendum{
		Layer:   layer,
		History: v1.History{Created: created, CreatedBy: "make image (hack/image)"},
	})
	if err != nil {
		return nil, err
	}
	config, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	config = config.DeepCopy()
	config.OS, config.Architecture, config.Created = "linux", s.arch, created
	config.Config = v1.Config{
		Entrypoint: []string{"/" + binaryPath},
		User:       nonrootUser,
		WorkingDir: "/",
		Labels: map[string]string{
			labelVersion:  s.version,
			labelRevision: s.commit,
			labelSource:   "https://github.com/gatewright/gatewright",
		},
	}
	return mutate.ConfigFile(img, config)
}

// tarOf writes files as a tar stream with every header fixed: owned by root, modified
// at the build's time, so that the layer's digest depends on the files alone.
func tarOf(files []file, modified time.Time) ([]byte, error) {
	var out bytes.Buffer
	w := tar.NewWriter(&out)
	for _, f := range files {
		header := &tar.Header{
			Name:    f.path,
			Mode:    int64(f.mode.Perm()),
			ModTime: modified.UTC(),
			Format:  tar.FormatPAX,
		}
		if f.data == nil {
			header.Typeflag, header.Name = tar.TypeDir, f.path+"/"
		} else {
			header.Typeflag, header.Size = tar.TypeReg, int64(len(f.data))
		}
		if err := w.WriteHeader(header); err != nil {
			return nil, err
		}
		if _, err := w.Write(f.data); err != nil {
			return nil, err
		}
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}
