package store

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
)

// MigrationsDigest is a SHA-256 of the embedded migrations, names and
// contents: tests key the migrated databases they copy by it
// (storetest), so a changed migration is never served from a stale copy.
func MigrationsDigest() (string, error) {
	entries, err := fs.ReadDir(migrationFiles, "migrations")
	if err != nil {
		return "", err
	}
	h := sha256.New()
	for _, e := range entries { // ReadDir sorts by name
		body, err := migrationFiles.ReadFile("migrations/" + e.Name())
		if err != nil {
			return "", err
		}
		h.Write([]byte(e.Name()))
		h.Write([]byte{0})
		h.Write(body)
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
