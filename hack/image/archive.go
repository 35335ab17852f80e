package main

import (
	"encoding/json"
	"io"
	"os"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// writeArchive writes img, named ref, as an OCI image layout in a tar stream, with a
// Docker manifest.json beside it, the layout `docker save` writes since Docker 25: kind
// and containerd (`ctr images import`) read the layout and its io.containerd.image.name
// annotation, skopeo reads it as oci-archive: (and docker-archive:), and crane push and
// go-containerregistry's tarball package read manifest.json. Its headers are fixed as
// the layer's are.
func writeArchive(out io.Writer, img v1.Image, ref name.Tag, modified time.Time) error {
	manifest, err := img.RawManifest()
	if err != nil {
		return err
	}
	manifestDigest, err := img.Digest()
	if err != nil {
		return err
	}
	config, err := img.RawConfigFile()
	if err != nil {
		return err
	}
	configDigest, err := img.ConfigName()
	if err != nil {
		return err
	}
	layers, err := img.Layers()
	if err != nil {
		return err
	}
	index, err := json.Marshal(v1.IndexManifest{
		SchemaVersion: 2,
		MediaType:     types.OCIImageIndex,
		Manifests: []v1.Descriptor{{
			MediaType: types.OCIManifestSchema1,
			Digest:    manifestDigest,
			Size:      int64(len(manifest)),
			Annotations: map[string]string{
				"io.containerd.image.name":          ref.Name(),
				"org.opencontainers.image.ref.name": ref.TagStr(),
			},
		}},
	})
	if err != nil {
		return err
	}
	docker := []struct {
		Config   string
		RepoTags []string
		Layers   []string
	}{{Config: blobPath(configDigest), RepoTags: []string{ref.Name()}}}

	files := []file{
		{path: "blobs", mode: os.ModeDir | 0o755},
		{path: "blobs/" + manifestDigest.Algorithm, mode: os.ModeDir | 0o755},
		{path: blobPath(manifestDigest), mode: 0o644, data: manifest},
		{path: blobPath(configDigest), mode: 0o644, data: config},
	}
	for _, layer := range layers {
		digest, err := layer.Digest()
		if err != nil {
			return err
		}
		data, err := compressed(layer)
		if err != nil {
			return err
		}
		files = append(files, file{path: blobPath(digest), mode: 0o644, data: data})
		docker[0].Layers = append(docker[0].Layers, blobPath(digest))
	}
	dockerManifest, err := json.Marshal(docker)
	if err != nil {
		return err
	}
	files = append(files,
		file{path: "index.json", mode: 0o644, data: index},
		file{path: "manifest.json", mode: 0o644, data: dockerManifest},
		file{path: "oci-layout", mode: 0o644, data: []byte(`{"imageLayoutVersion":"1.0.0"}`)},
	)
	archive, err := tarOf(files, modified)
	if err != nil {
		return err
	}
	_, err = out.Write(archive)
	return err
}

func blobPath(digest v1.Hash) string { return "blobs/" + digest.Algorithm + "/" + digest.Hex }

func compressed(layer v1.Layer) ([]byte, error) {
	r, err := layer.Compressed()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return io.ReadAll(r)
}
