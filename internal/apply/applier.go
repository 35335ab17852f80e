package apply

import (
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/gatewright/gatewright/internal/manifest"
)

// FieldManager is the server-side apply field manager of every object Gatewright applies.
const FieldManager = "gatewright"

// ConflictError says that an object to apply exists and belongs to someone else.
type ConflictError struct {
	Object Entry
	Owner  string
}

func (e *ConflictError) Error() string {
	return fmt.Sprintf("%s exists and is not managed by Gatewright for %s: refusing to take it over", e.Object, e.Owner)
}

// Applier applies, prunes and deletes objects.
type Applier struct {
	client    client.Client // reads from the cache, which holds the objects Gatewright manages
	apiReader client.Reader // reads from the API server, for objects the cache does not hold
	echoes    echoes
	// indexedRecords says the cache indexes Renderings by owner (NewIndexed).
	indexedRecords bool
}

// New returns an Applier. c should read from a cache that holds Gatewright's objects;
// apiReader reads from the API server directly.
func New(c client.Client, apiReader client.Reader) *Applier {
	return &Applier{
		client:    c,
		apiReader: apiReader,
	}
}

// Result is what one Apply did.
type Result struct {
	// Applied lists the objects applied this round, and Live holds each as the API
	// server returned it (or as it already was): fresher than the cache, which sees a
	// new object only some milliseconds later.
	Applied Inventory
	Live    []*unstructured.Unstructured
	// Changed lists the objects created or changed (the rest were already as rendered),
	// and ChangedTemplates the templates that rendered them.
	Changed          []string
	ChangedTemplates []string
	// Pruned lists the objects deleted because they are no longer rendered.
	Pruned []string
	// Recorded is what the owner's record lists after the round (ApplyRecorded), and
	// NotReady names the objects of it that are not ready yet.
	Recorded Inventory
	NotReady []string
}

// Apply applies objs for owner, then deletes the objects of previous that objs no
// longer contain, except those keep says to keep (the objects of templates that wait
// for a dependency). It prunes only when every apply succeeded.
//
// It never takes over an object that is not owner's. The cache holds Gatewright's
// objects, so what it holds is checked before anything is applied. What it does not
// hold is created only if it does not exist (createNew), and when it exists after all
// it is read from the API server and checked: a new Gateway's objects cost no read. New
// objects are applied before changed ones, so that a round that finds someone else's
// object changes nothing that existed; what it created is in the owner's record.
func (a *Applier) Apply(ctx context.Context, owner Owner, objs []*unstructured.Unstructured, previous Inventory, keep func(Entry) bool) (*Result, error) {
	return a.applyPlanned(ctx, owner, objs, Plan(owner, objs), previous, keep, nil)
}

// applyPlanned is Apply for objs that Plan made ready, planned being their inventory.
// read holds objects of owner read from the cache earlier in the round (LiveRecorded),
// by entry key: those of objs's version are not read again.
func (a *Applier) applyPlanned(ctx context.Context, owner Owner, objs []*unstructured.Unstructured, planned Inventory, previous Inventory, keep func(Entry) bool, read map[string]*unstructured.Unstructured) (*Result, error) {
	existing := make([]*unstructured.Unstructured, len(objs))
	err := eachConcurrently(ctx, objs, func(ctx context.Context, i int) error {
		if obj, ok := read[entryOf(objs[i]).key()]; ok && obj.GetAPIVersion() == objs[i].GetAPIVersion() {
			existing[i] = obj
			return nil
		}
		var err error
		existing[i], err = a.cached(ctx, owner, objs[i])
		return err
	})
	if err != nil {
		return nil, err
	}
	result := &Result{Applied: planned, Live: make([]*unstructured.Unstructured, len(objs))}
	changes := make([]string, len(objs))
	err = eachConcurrently(ctx, objs, func(ctx context.Context, i int) error {
		if existing[i] != nil {
			return nil
		}
		var err error
		result.Live[i], changes[i], err = a.createNew(ctx, objs[i])
		if apierrors.IsConflict(err) {
			existing[i], err = a.readOwned(ctx, owner, objs[i])
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	err = eachConcurrently(ctx, objs, func(ctx context.Context, i int) error {
		switch {
		case result.Live[i] != nil: // created
			return nil
		case existing[i] != nil && matches(existing[i], objs[i]):
			// As rendered: no request. Any other object is applied at once: server-side
			// apply is idempotent, and a dry run first would double the requests.
			result.Live[i] = existing[i]
			return nil
		}
		var err error
		result.Live[i], changes[i], err = a.serverSideApply(ctx, objs[i], existing[i], "")
		return err
	})
	if err != nil {
		return nil, err
	}
	for i, change := range changes {
		if change != "" {
			result.Changed = append(result.Changed, change)
			result.ChangedTemplates = append(result.ChangedTemplates, manifest.Label(objs[i], templateLabel))
		}
	}
	for _, stale := range previous.Without(result.Applied) {
		if keep != nil && keep(stale) {
			continue
		}
		deleted, err := a.delete(ctx, owner, stale)
		if err != nil {
			return nil, err
		}
		if deleted {
			result.Pruned = append(result.Pruned, stale.String())
		}
	}
	return result, nil
}

// absentVersion is a resourceVersion no stored object has: etcd gives the first write
// of a cluster revision 2. A server-side apply that carries it creates the object when
// there is none, and is refused with a conflict when there is one, whoever's it is.
const absentVersion = "1"

// createNew creates obj with a server-side apply, like any other, but only if no object
// of its name exists; when one does, the error is a conflict and nothing is changed.
func (a *Applier) createNew(ctx context.Context, obj *unstructured.Unstructured) (*unstructured.Unstructured, string, error) {
	return a.serverSideApply(ctx, obj, nil, absentVersion)
}

// serverSideApply applies obj with Gatewright's field manager, returns the object as
// the API server has it now, and says whether it created or changed the object ("" when
// the API server found nothing to change). It takes back fields another manager
// changed, which is how drift (a kubectl edit) is corrected: the ownership guard has
// already refused every object not rendered for the same owner. A resourceVersion other
// than "" is a precondition: the apply is refused with a conflict unless it matches.
func (a *Applier) serverSideApply(ctx context.Context, obj, existing *unstructured.Unstructured, resourceVersion string) (*unstructured.Unstructured, string, error) {
	name := obj.GetKind() + "/" + client.ObjectKeyFromObject(obj).String()
	if obj.GetNamespace() == "" {
		name = obj.GetKind() + "/" + obj.GetName()
	}
	a.echoes.applying(obj)
	live, err := a.applyPatch(ctx, obj, resourceVersion)
	if err != nil {
		a.echoes.applied(obj, nil)
		return nil, "", fmt.Errorf("applying %s: %w", name, err)
	}
	change := ""
	switch {
	case existing == nil:
		change = name + " created"
	case live.GetResourceVersion() != existing.GetResourceVersion():
		change = name + " configured"
	}
	if change == "" {
		a.echoes.applied(obj, nil)
	} else {
		a.echoes.applied(obj, live)
	}
	return live, change, nil
}

// Plan makes objs ready to apply for owner (owner reference, rendered hash) and returns
// their inventory, to be recorded before they are applied. Each entry is ready as kstatus
// judges the object as rendered: for the many kinds whose readiness is their existence (a
// ConfigMap, a ClusterIP Service) that is what the apply finds, so the record need not be
// written again after it. Planning twice changes nothing.
func Plan(owner Owner, objs []*unstructured.Unstructured) Inventory {
	return plan(owner, objs, byKstatus)
}

// plan is Plan with the entries judged by judge (a blueprint's readyWhen, kstatus else),
// each as the template that rendered it, which the rendered object's labels say.
func plan(owner Owner, objs []*unstructured.Unstructured, judge func(*unstructured.Unstructured, string) (bool, string)) Inventory {
	inv := make(Inventory, 0, len(objs))
	for _, obj := range objs {
		setOwnerReference(owner, obj)
		stampRenderedHash(obj)
		e := entryOf(obj)
		e.Ready, _ = judge(obj, e.Template)
		inv = append(inv, e)
	}
	inv.sort()
	return inv
}

// DeleteAll deletes every object of inv that still belongs to owner, and returns those
// it deleted.
func (a *Applier) DeleteAll(ctx context.Context, owner Owner, inv Inventory) ([]string, error) {
	var deleted []string
	var errs []error
	for _, e := range inv {
		ok, err := a.delete(ctx, owner, e)
		if err != nil {
			errs = append(errs, err)
		}
		if ok {
			deleted = append(deleted, e.String())
		}
	}
	return deleted, errors.Join(errs...)
}

// Live returns the objects of inv as they are now, by template. Objects that are gone,
// or that do not carry owner's labels and the entry's template label, are left out: what
// a template reads back must be what it rendered for the same owner. The objects are
// the cache's, whose content may be stripped (StripContent).
func (a *Applier) Live(ctx context.Context, owner Owner, inv Inventory) (map[string][]*unstructured.Unstructured, error) {
	return a.live(ctx, owner, inv, nil, nil)
}

// LiveRecorded is Live for the record's objects, each whole when the record's
// ReadsWhole says its template's objects are read (.Resources, readyWhen). The record
// keeps them, by entry, for its next ApplyRecorded, which starts from them rather than
// read and convert each again.
func (a *Applier) LiveRecorded(ctx context.Context, rec *Record) (map[string][]*unstructured.Unstructured, error) {
	rec.live = map[string]*unstructured.Unstructured{}
	return a.live(ctx, rec.owner, rec.Inventory, rec.ReadsWhole, rec.live)
}

// live is Live, which reads from the API server each object the cache holds stripped
// whose template whole says is read whole, and puts each object it returns into byKey
// when given.
func (a *Applier) live(ctx context.Context, owner Owner, inv Inventory, whole func(template string) bool, byKey map[string]*unstructured.Unstructured) (map[string][]*unstructured.Unstructured, error) {
	live := map[string][]*unstructured.Unstructured{}
	for _, e := range inv {
		obj, fromServer := e.object(), false
		err := getUnstructured(ctx, a.client, client.ObjectKeyFromObject(obj), obj)
		if apierrors.IsNotFound(err) {
			// The inventory lists it, so it was applied: a cache that lacks it is most
			// likely behind the apply that created it (the round after a template's
			// dependency was created), whose own watch event brings no new round. The
			// API server says whether it is there.
			obj, fromServer = e.object(), true
			err = getUnstructured(ctx, a.apiReader, client.ObjectKeyFromObject(obj), obj)
		}
		if err != nil {
			if apierrors.IsNotFound(err) {
				continue
			}
			return nil, fmt.Errorf("reading %s: %w", e, err)
		}
		if fromServer {
			obj.SetManagedFields(nil)
			forgetContentHash(obj)
		} else if _, isStripped := stripped(obj); isStripped && whole != nil && whole(e.Template) {
			obj = e.object()
			if err := getUnstructured(ctx, a.apiReader, client.ObjectKeyFromObject(obj), obj); err != nil {
				if apierrors.IsNotFound(err) {
					continue
				}
				return nil, fmt.Errorf("reading %s: %w", e, err)
			}
			obj.SetManagedFields(nil)
			forgetContentHash(obj)
		}
		if !owner.owns(obj) || manifest.Label(obj, templateLabel) != e.Template {
			continue
		}
		live[e.Template] = append(live[e.Template], obj)
		if byKey != nil {
			byKey[e.key()] = obj
		}
	}
	return live, nil
}

// cached returns the object of obj's name as the cache holds it, nil when it holds none,
// and refuses one that is not owner's.
func (a *Applier) cached(ctx context.Context, owner Owner, obj *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	return a.owned(ctx, a.client, owner, obj)
}

// readOwned is cached, read from the API server: for an object the cache does not hold.
func (a *Applier) readOwned(ctx context.Context, owner Owner, obj *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	return a.owned(ctx, a.apiReader, owner, obj)
}

func (a *Applier) owned(ctx context.Context, reader client.Reader, owner Owner, obj *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	existing := &unstructured.Unstructured{}
	existing.SetGroupVersionKind(obj.GroupVersionKind())
	err := getUnstructured(ctx, reader, client.ObjectKeyFromObject(obj), existing)
	switch {
	case apierrors.IsNotFound(err):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("reading %s %s: %w", obj.GetKind(), client.ObjectKeyFromObject(obj), err)
	case !owner.owns(existing):
		return nil, &ConflictError{Object: entryOf(obj), Owner: owner.String()}
	}
	if reader != a.client {
		forgetContentHash(existing)
	}
	return existing, nil
}

// delete removes the object of e if it still carries owner's labels: an inventory is
// never a licence to delete someone else's object.
func (a *Applier) delete(ctx context.Context, owner Owner, e Entry) (bool, error) {
	obj := e.object()
	if err := a.apiReader.Get(ctx, client.ObjectKeyFromObject(obj), obj); err != nil {
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		return false, fmt.Errorf("reading %s: %w", e, err)
	}
	if !owner.owns(obj) || obj.GetDeletionTimestamp() != nil {
		return false, nil
	}
	if err := a.client.Delete(ctx, obj, client.PropagationPolicy(metav1.DeletePropagationBackground)); err != nil && !apierrors.IsNotFound(err) {
		return false, fmt.Errorf("deleting %s: %w", e, err)
	}
	return true, nil
}

// setOwnerReference makes owner the controller of obj when Kubernetes allows it: for
// namespaced objects in the owner's namespace.
func setOwnerReference(owner Owner, obj *unstructured.Unstructured) {
	if obj.GetNamespace() == "" || obj.GetNamespace() != owner.Object.GetNamespace() {
		return
	}
	yes := true
	obj.SetOwnerReferences([]metav1.OwnerReference{{
		APIVersion:         owner.GVK.GroupVersion().String(),
		Kind:               owner.GVK.Kind,
		Name:               owner.Object.GetName(),
		UID:                owner.Object.GetUID(),
		Controller:         &yes,
		BlockOwnerDeletion: &yes,
	}})
}
