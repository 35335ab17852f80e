package manifest

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"strings"

	"sigs.k8s.io/controller-runtime/pkg/client"
)

// ApplyAll applies every object of every YAML file in fsys, in file name order, and
// says what it applied on out.
func ApplyAll(ctx context.Context, k8s client.Client, fsys fs.FS, fieldOwner string, out io.Writer) error {
	return fs.WalkDir(fsys, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		return ApplyFile(ctx, k8s, fsys, path, fieldOwner, out)
	})
}

// ApplyFile applies the objects of one YAML file of fsys with server-side apply as
// fieldOwner, as `kubectl apply --server-side --force-conflicts` would, and says what it
// applied on out.
func ApplyFile(ctx context.Context, k8s client.Client, fsys fs.FS, path, fieldOwner string, out io.Writer) error {
	data, err := fs.ReadFile(fsys, path)
	if err != nil {
		return err
	}
	objs, err := Decode(data)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	for _, obj := range objs {
		if err := k8s.Apply(ctx, client.ApplyConfigurationFromUnstructured(obj), client.FieldOwner(fieldOwner), client.ForceOwnership); err != nil {
			return fmt.Errorf("%s: %s %s: %w", path, obj.GetKind(), obj.GetName(), err)
		}
		fmt.Fprintf(out, "  applied %s %s\n", obj.GetKind(), strings.TrimPrefix(client.ObjectKeyFromObject(obj).String(), "/"))
	}
	return nil
}
