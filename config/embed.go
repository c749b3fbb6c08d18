// Package config embeds the sample brand files (config/brands/*.yaml), the
// brands the binary serves when GUICHET_BRANDS_DIR is not set, so that
// `guichet serve --dev` runs from any directory.
package config

import (
	"embed"
	"io/fs"
)

//go:embed brands/*.yaml
var brands embed.FS

// Brands holds the sample brand files at its root.
func Brands() fs.FS {
	sub, err := fs.Sub(brands, "brands")
	if err != nil {
		panic(err) // the embed directive guarantees the folder
	}
	return sub
}
