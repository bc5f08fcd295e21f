package model

import (
	"unicode"
)

// isIdent reports whether s is a plain word (used to reject junk keys).
func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' {
			return false
		}
	}
	return true
}
