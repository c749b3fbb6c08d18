package brand

// The resolution rules below are mirrored by web/src/lib/site/resolve.ts;
// both run testdata/resolution/vectors.json. Values are compared after
// lowering A-Z only, never trimmed.

// ResolveProvince picks the request's province: the query string value, else
// the cookie, else the brand's default. A value counts only if the brand
// offers that province; a hidden one (menu: false) counts too.
func (b *Brand) ResolveProvince(query, cookie string) string {
	for _, v := range []string{query, cookie} {
		if p, ok := b.Province(v); ok {
			return p.Key
		}
	}
	return b.DefaultProvince
}

// ResolveLanguage picks the request's language in a (resolved) province: the
// query string value, else the cookie, else the province's first language. A
// value counts only if the province offers it. A province the brand does not
// offer reads as the brand's default province.
func (b *Brand) ResolveLanguage(province, query, cookie string) string {
	p := b.provinceOrDefault(province)
	if p == nil || len(p.Languages) == 0 {
		return FallbackLanguage
	}
	for _, v := range []string{query, cookie} {
		v = asciiLower(v)
		for _, l := range p.Languages {
			if v == l {
				return l
			}
		}
	}
	return p.Languages[0]
}
