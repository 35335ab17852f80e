package translate

import (
	"github.com/gatewright/gatewright/internal/render"
	"github.com/gatewright/gatewright/internal/routing"
)

// Memo keeps what one render of a Gateway can hand the next: the matches of its routes
// (routing.MatchMemo) and their template data (render.TableMemo). A Gateway of
// thousands of routes is rendered again for each route's edit; with a memo, only that
// route's part of the table is computed again. The controller keeps one per Gateway.
type Memo struct {
	Matches routing.MatchMemo
	Table   *render.TableMemo
}

// NewMemo is an empty memo, for one Gateway.
func NewMemo() *Memo { return &Memo{Table: render.NewTableMemo()} }
