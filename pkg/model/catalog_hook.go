package model

// catalogFacts is the catalog's part in resolution: the facts the entry of
// the kind named name implies (as overrides with their sources), the
// entry's canonical name, or the names near name when none matches. A NIC
// may be named by its InfiniBand generation too (nic.model: HDR).
func catalogFacts(kind, name string) (facts []Override, entry string, near []string, ok bool) {
	kinds := []string{kind}
	if kind == CatalogNIC {
		kinds = append(kinds, CatalogInfiniBand)
	}
	for _, k := range kinds {
		if e, found := LookupCatalog(k, name); found {
			facts = make([]Override, len(e.Facts))
			for i, f := range e.Facts {
				facts[i] = Override{Key: f.Key, Value: f.Value, Source: f.Source}
			}
			return facts, e.Name, nil, true
		}
	}
	for _, k := range kinds {
		near = append(near, NearCatalogNames(k, name)...)
	}
	return nil, "", near, false
}

// catalogKey is the scenario key that names an entry of the kind.
func catalogKey(kind string) string {
	for _, ck := range catalogKeys {
		if ck.kind == kind {
			return ck.key
		}
	}
	if kind == CatalogInfiniBand {
		return "nic.model"
	}
	return ""
}
