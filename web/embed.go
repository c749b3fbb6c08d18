// Package web embeds the built single-page app (web/dist, made by `make
// build`) and the route list the SPA and the server share.
package web

import (
	"embed"
	"io/fs"
)

//go:embed all:dist
var dist embed.FS

//go:embed src/app/paths.json
var pathsJSON []byte

// Dist is the built SPA: index.html and assets/.
func Dist() fs.FS {
	sub, err := fs.Sub(dist, "dist")
	if err != nil {
		panic(err) // the embed directive guarantees the folder
	}
	return sub
}

// Paths is the JSON list of the SPA's route patterns (src/app/paths.json).
func Paths() []byte { return pathsJSON }
