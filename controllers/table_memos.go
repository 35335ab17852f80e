package controllers

import (
	"sync"

	"k8s.io/apimachinery/pkg/types"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gatewright/gatewright/internal/snapshot"
	"github.com/gatewright/gatewright/internal/translate"
)

// tableMemos keeps each Gateway's translate.Memo, snapshot.AttachMemo and
// snapshot.BackendMemo between its reconciles, so that a route's edit on a Gateway of
// thousands attaches that route, resolves its backendRefs and computes its part of the
// route table again, not all of them; and the render of it the API server last refused
// (refusedApply). A Gateway's memo goes with the Gateway, or with its UID (a Gateway
// deleted and made again under the same name starts anew).
type tableMemos struct {
	mu    sync.Mutex
	memos map[types.NamespacedName]gatewayMemo
}

type gatewayMemo struct {
	uid      types.UID
	table    *translate.Memo
	attached *snapshot.AttachMemo
	backends *snapshot.BackendMemo
	refused  *refusedApply
}

// of is gw's memo.
func (t *tableMemos) of(gw *gatewayv1.Gateway) gatewayMemo {
	t.mu.Lock()
	defer t.mu.Unlock()
	key := types.NamespacedName{Namespace: gw.Namespace, Name: gw.Name}
	if m, ok := t.memos[key]; ok && m.uid == gw.UID {
		return m
	}
	if t.memos == nil {
		t.memos = map[types.NamespacedName]gatewayMemo{}
	}
	m := gatewayMemo{uid: gw.UID, table: translate.NewMemo(), attached: snapshot.NewAttachMemo(), backends: snapshot.NewBackendMemo(), refused: &refusedApply{}}
	t.memos[key] = m
	return m
}

// attachedOf is the AttachMemo of gw, if the Gateway reconciler keeps one for it: the
// policies' judgements share it, and never make one for a Gateway it does not program.
func (t *tableMemos) attachedOf(gw *gatewayv1.Gateway) *snapshot.AttachMemo {
	t.mu.Lock()
	defer t.mu.Unlock()
	if m, ok := t.memos[types.NamespacedName{Namespace: gw.Namespace, Name: gw.Name}]; ok && m.uid == gw.UID {
		return m.attached
	}
	return nil
}

// forget drops the memo of the Gateway key, which is gone or no longer Gatewright's.
func (t *tableMemos) forget(key types.NamespacedName) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.memos, key)
}
