package httpapi

import (
	"strings"
	"testing"
)

// TestFillPattern: only a classified public id with an id's shape is
// written; a token, an unclassified wildcard (unknown means secret) and a
// public slot holding something else keep their name.
func TestFillPattern(t *testing.T) {
	const id = "AAAAAAAAAAAAAAAAAAAAAA"
	secret := strings.Repeat("s", 43)
	cases := []struct {
		pattern string
		values  map[string]string
		want    string
	}{
		{"/api/v1/tokens/{token}", map[string]string{"token": secret}, "/api/v1/tokens/{token}"},
		{"/api/v1/tokens/{token}", map[string]string{"token": id}, "/api/v1/tokens/{token}"},
		{"/a/{id}/v/{validationId}/{$}", map[string]string{"id": id, "validationId": id}, "/a/" + id + "/v/" + id + "/"},
		{"/a/{id}/b", map[string]string{"id": secret}, "/a/{id}/b"},
		{"/a/{mystery}/{id}", map[string]string{"mystery": strings.Repeat("B", 22), "id": id}, "/a/{mystery}/" + id},
		{"/a/{rest...}", map[string]string{"rest": id}, "/a/{rest...}"},
	}
	for _, c := range cases {
		got := fillPattern(strings.Split(c.pattern, "/"), func(n string) string { return c.values[n] })
		if got != c.want {
			t.Errorf("%s: %s, want %s", c.pattern, got, c.want)
		}
		for name, v := range c.values {
			if k, _ := WildcardClass(name); k != WildcardPublicID && strings.Contains(got, v) {
				t.Errorf("%s: the value of {%s} is written: %s", c.pattern, name, got)
			}
		}
	}
}
