package capture

import (
	"github.com/gotracy/gotracy/model"
)

// storeString interns a string by content (Tracy's StoreString): the same
// text is stored once however many keys or items carry it. The lookup with
// a []byte key does not allocate.
func (w *worker) storeString(b []byte) model.StrID {
	if id, ok := w.strIdx[string(b)]; ok {
		return id
	}
	return w.addInterned(string(b))
}

// strMemo remembers the last two distinct strings one item kind stored.
type strMemo struct {
	id [2]model.StrID
	n  int // entries in use
}

// storeStringMemo is storeString with a two-entry memo per item kind: the
// answers to call-stack frame queries mostly repeat the previous answer's
// strings (the instructions of one function follow each other), and the
// SingleString alternates between the image name and the function name, so
// a comparison with the last two strings stands in for hashing and probing
// the intern map. Interned strings never change, so the memo cannot go
// stale.
func (w *worker) storeStringMemo(b []byte, m *strMemo) model.StrID {
	for k := range m.n {
		if id := m.id[k]; int(id) < len(w.t.Strings) && w.t.Strings[id] == string(b) {
			return id
		}
	}
	id := w.storeString(b)
	m.id[1], m.id[0] = m.id[0], id
	m.n = min(m.n+1, 2)
	return id
}

func (w *worker) storeStringS(s string) model.StrID {
	if id, ok := w.strIdx[s]; ok {
		return id
	}
	return w.addInterned(s)
}

func (w *worker) addInterned(s string) model.StrID {
	w.strAdded++
	if n := len(w.strFree); n > 0 {
		id := w.strFree[n-1]
		w.strFree = w.strFree[:n-1]
		w.t.Strings[id] = s
		w.strIdx[s] = id
		w.strUse[id] = strPinned
		return id
	}
	id := model.StrID(len(w.t.Strings))
	w.t.Strings = append(w.t.Strings, s)
	w.strIdx[s] = id
	if w.strUse != nil {
		w.strUse = append(w.strUse, strPinned)
	}
	return id
}

// takeSingle consumes the pending SingleString for something that is never
// trimmed. An event that needs one when none was sent gets the empty
// string, where Tracy would assert.
func (w *worker) takeSingle() model.StrID {
	if !w.hasSingle {
		return w.storeStringS("")
	}
	w.hasSingle = false
	w.pin(w.single)
	return w.single
}

// takeSingleRef consumes the pending SingleString for a zone extra or a
// message, which a flight recorder drops: it counts a reference instead of
// pinning the string.
func (w *worker) takeSingleRef() model.StrID {
	if !w.hasSingle {
		return w.storeStringS("")
	}
	w.hasSingle = false
	w.ref(w.single)
	return w.single
}

func (w *worker) takeSecond() model.StrID {
	if !w.hasSecond {
		return w.storeStringS("")
	}
	w.hasSecond = false
	w.pin(w.second)
	return w.second
}

// checkString asks for the text of a pointer key the first time it is
// seen. It reports whether the text is already known.
func (w *worker) checkString(key uint64) bool {
	if key == 0 {
		return true
	}
	if _, ok := w.t.PtrStrings[key]; ok {
		return true
	}
	if _, ok := w.strPending[key]; ok {
		return false
	}
	w.strPending[key] = struct{}{}
	w.q.push(qString, key, 0)
	return false
}

// addString stores a StringData answer. An answer nobody asked for (a
// recorded stream holds the answers to another server's queries) is kept
// all the same: the key's text cannot change during a connection.
func (w *worker) addString(key uint64, b []byte) {
	delete(w.strPending, key)
	id := w.storeString(b)
	if _, ok := w.t.PtrStrings[key]; !ok {
		w.t.PtrStrings[key] = id
	}
	if _, ok := w.pendingFiles[key]; ok {
		delete(w.pendingFiles, key)
		w.cacheSourcePtr(key, 0)
	}
}

func (w *worker) addThreadName(id uint64, b []byte) {
	delete(w.threadNamePending, id)
	w.t.ThreadNames[id] = w.storeString(b)
}

func (w *worker) checkExternalName(id uint64) {
	if _, ok := w.extNames[id]; ok {
		return
	}
	w.extNames[id] = struct{}{}
	w.extPending += 2
	w.q.push(qExternalName, id, 0)
}

// externalName stores one half of an ExternalName answer: the thread name
// (ExternalThreadName) or the process name (ExternalName).
func (w *worker) externalName(id uint64, b []byte, thread bool) {
	if w.extPending > 0 {
		w.extPending--
	}
	e := w.t.ExtThreadNames[id]
	if thread {
		e[1] = w.storeString(b)
	} else {
		e[0] = w.storeString(b)
	}
	w.t.ExtThreadNames[id] = e
}
