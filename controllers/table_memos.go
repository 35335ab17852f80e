package controllers

import (
	"sync"

	"k8s.io/apimachinery/pkg/types"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gatewright/gatewright/internal/translate"
)

// tableMemos keeps each Gateway's translate.Memo between its reconciles, so that a
// route's edit on a Gateway of thousands computes that route's part of the route table
// again, not all of it. A Gateway's memo goes with the Gateway, or with its UID (a
// Gateway deleted and made again under the same name starts anew).
type tableMemos struct {
	mu    sync.Mutex
	memos map[types.NamespacedName]gatewayMemo
}

type gatewayMemo struct {
	uid  types.UID
	memo *translate.Memo
}

// of is gw's memo.
func (t *tableMemos) of(gw *gatewayv1.Gateway) *translate.Memo {
	t.mu.Lock()
	defer t.mu.Unlock()
	key := types.NamespacedName{Namespace: gw.Namespace, Name: gw.Name}
	if m, ok := t.memos[key]; ok && m.uid == gw.UID {
		return m.memo
	}
	if t.memos == nil {
		t.memos = map[types.NamespacedName]gatewayMemo{}
	}
	m := gatewayMemo{uid: gw.UID, memo: translate.NewMemo()}
	t.memos[key] = m
	return m.memo
}

// forget drops the memo of the Gateway key, which is gone or no longer Gatewright's.
func (t *tableMemos) forget(key types.NamespacedName) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.memos, key)
}
