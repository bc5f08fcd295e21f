package model

// Two small helpers for the facts that reach a scenario from outside
// (pkg/calib's Overrides): the text of a typed override, for files and
// tables, and the catalog entries a partial name may mean.

// Text returns the override's value as a scenario file writes it
// ("200Gbit/s", "gen4x16", "true"; what --set takes back), after the
// key's own checks: an unknown key or a value the key refuses is an
// *InputError naming the key. It is for writing a value down (a scenario
// file, a table); a scenario takes the typed value through Apply.
func (o Override) Text() (string, error) {
	k, ok := lookupKey(o.Key)
	if !ok {
		return "", &InputError{Key: o.Key, Err: unknownKeyErr(o.Key)}
	}
	var s Scenario
	if err := k.set(&s, o.Value); err != nil {
		return "", &InputError{Key: o.Key, Err: err}
	}
	return k.Text(&s), nil
}

// CatalogMatches lists the entries of a kind ("" for any) that name may
// mean: the one whose name or alias it is (as LookupCatalog compares
// names), else every entry of which it spells a run of whole words of a
// name or alias ("A100": the four A100 entries; "ConnectX-4": the
// ConnectX-4 and ConnectX-4 Lx entries), in catalog order. Typing errors
// match nothing (NearCatalogNames lists those).
func CatalogMatches(kind, name string) []CatalogEntry {
	if e, ok := LookupCatalog(kind, name); ok {
		return []CatalogEntry{e}
	}
	catalogOnce.Do(loadCatalog)
	if catalogErr != nil {
		return nil
	}
	q := catalogWords(name)
	qs := ""
	for _, w := range q {
		qs += w
	}
	if qs == "" {
		return nil
	}
	var out []CatalogEntry
	for _, e := range catalogOf(kind) {
		for _, n := range e.names() {
			if wordRun(catalogWords(n), qs) {
				out = append(out, e.clone())
				break
			}
		}
	}
	return out
}
