// Package config embeds the sample brand files (config/brands/*.yaml), the
// brands the binary serves when GUICHET_BRANDS_DIR is not set, so that
// `guichet serve --dev` runs from any directory, and each brand's chatbot
// questions and answers (config/brands/<id>/faq.yaml, read by
// internal/chat/bot).
package config

import (
	"embed"
	"io/fs"
)

//go:embed brands/*.yaml brands/*/faq.yaml
var brands embed.FS

// Brands holds the sample brand files at its root, and each brand's FAQ at
// <id>/faq.yaml: the same layout as a GUICHET_BRANDS_DIR directory, so
// bot.Load reads either (config.Brands() or os.DirFS(dir)). The brand
// loader reads only the *.yaml files of the root.
func Brands() fs.FS {
	sub, err := fs.Sub(brands, "brands")
	if err != nil {
		panic(err) // the embed directive guarantees the folder
	}
	return sub
}

// FAQ returns the embedded FAQ file of a brand (<id>/faq.yaml of Brands()).
func FAQ(brandID string) ([]byte, error) {
	return fs.ReadFile(Brands(), brandID+"/faq.yaml")
}
