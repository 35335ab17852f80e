package summary_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	lua "github.com/yuin/gopher-lua"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// argocdDir holds the Argo CD health checks, one per kind, named as argocd-cm's keys
// resource.customizations.health.<group>_<kind> name them.
var argocdDir = filepath.Join("..", "..", "config", "argocd")

// health is what Argo CD's health check of obj's kind says of it: the script run as
// Argo CD runs it, with obj as the global obj and only the libraries Argo CD opens when
// useOpenLibs is not set (package, base and table), its returned table read.
func health(t *testing.T, obj *unstructured.Unstructured) (status, message string) {
	t.Helper()
	script, err := os.ReadFile(filepath.Join(argocdDir, obj.GroupVersionKind().Group+"_"+obj.GetKind()+".lua"))
	if err != nil {
		t.Fatal(err)
	}
	l := lua.NewState(lua.Options{SkipOpenLibs: true})
	defer l.Close()
	for name, open := range map[string]lua.LGFunction{lua.LoadLibName: lua.OpenPackage, lua.BaseLibName: lua.OpenBase, lua.TabLibName: lua.OpenTable} {
		l.Push(l.NewFunction(open))
		l.Push(lua.LString(name))
		l.Call(1, 0)
	}
	l.SetGlobal("obj", luaValue(l, obj.Object))
	if err := l.DoString(string(script)); err != nil {
		t.Fatalf("%s: %v", obj.GetKind(), err)
	}
	hs, ok := l.Get(-1).(*lua.LTable)
	if !ok {
		t.Fatalf("%s: the script returned %s, not a table", obj.GetKind(), l.Get(-1).Type())
	}
	return lua.LVAsString(hs.RawGetString("status")), lua.LVAsString(hs.RawGetString("message"))
}

// luaValue is v, a value of an unstructured object, as Argo CD hands it to Lua: objects
// and lists as tables, numbers as numbers.
func luaValue(l *lua.LState, v any) lua.LValue {
	switch v := v.(type) {
	case map[string]any:
		t := l.NewTable()
		for key, item := range v {
			t.RawSetString(key, luaValue(l, item))
		}
		return t
	case []any:
		t := l.NewTable()
		for _, item := range v {
			t.Append(luaValue(l, item))
		}
		return t
	case string:
		return lua.LString(v)
	case bool:
		return lua.LBool(v)
	case int64:
		return lua.LNumber(v)
	case float64:
		return lua.LNumber(v)
	}
	return lua.LNil
}

// TestArgoCDConfigMapHoldsTheScripts: the argocd-cm to merge holds each script beside it,
// as it is, under the key Argo CD reads it from, and nothing else.
func TestArgoCDConfigMapHoldsTheScripts(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(argocdDir, "argocd-cm.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var cm corev1.ConfigMap
	if err := yaml.UnmarshalStrict(raw, &cm); err != nil {
		t.Fatal(err)
	}
	scripts, err := filepath.Glob(filepath.Join(argocdDir, "*.lua"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	for _, path := range scripts {
		script, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		want["resource.customizations.health."+strings.TrimSuffix(filepath.Base(path), ".lua")] = string(script)
	}
	if diff := cmp.Diff(want, cm.Data); diff != "" {
		t.Errorf("argocd-cm.yaml's data differ from the scripts (-scripts +argocd-cm.yaml):\n%s", diff)
	}
	if cm.Name != "argocd-cm" || cm.Namespace != "argocd" {
		t.Errorf("the ConfigMap is %s/%s, want argocd/argocd-cm", cm.Namespace, cm.Name)
	}
}
