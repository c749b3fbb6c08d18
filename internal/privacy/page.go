package privacy

import (
	"encoding/json"
	"fmt"
	"html"
	"slices"
	"strings"
	"time"
)

// The export as a page to read: the same document as the JSON, each
// section a heading with its rows as description lists, in the customer's
// language, readable on a phone and by a screen reader, with no script and
// nothing fetched from elsewhere.

// sectionOrder is how the page orders the sections it knows; others
// (a holder added later) follow, by name.
var sectionOrder = []string{"account", "policies", "sessions", "knownDevices", "passkeys", "consents", "grants", "contactChanges", "emailUndos", "chats", "auditEvents"}

// labels names sections and fields in both languages; a name missing here
// is shown as it is in the JSON.
var labels = map[string][2]string{
	"account": {"Account", "Compte"}, "policies": {"Linked policies", "Polices liées"},
	"sessions": {"Sessions", "Sessions"}, "knownDevices": {"Browsers seen on the account", "Navigateurs vus sur le compte"},
	"passkeys": {"Passkeys", "Clés d’accès"}, "consents": {"Applications you allowed", "Applications autorisées"},
	"grants": {"Application sign-ins", "Connexions des applications"}, "chats": {"Chat conversations", "Conversations de clavardage"},
	"auditEvents": {"Account activity", "Activité du compte"},
	"email":       {"Email", "Courriel"}, "firstName": {"First name", "Prénom"}, "lastName": {"Last name", "Nom"},
	"language": {"Language", "Langue"}, "postalCode": {"Postal code", "Code postal"}, "phone": {"Cell phone", "Cellulaire"},
	"dateOfBirth": {"Date of birth", "Date de naissance"}, "ubiDriver": {"Usage-based insurance driver", "Conducteur en assurance à l’usage"},
	"status": {"Status", "Statut"}, "createdAt": {"Created", "Créé"}, "disabledAt": {"Disabled", "Désactivé"},
	"number": {"Policy number", "Numéro de police"}, "kind": {"Kind", "Type"}, "province": {"Province", "Province"}, "role": {"Role", "Rôle"},
	"id": {"Identifier", "Identifiant"}, "browser": {"Browser", "Navigateur"}, "system": {"System", "Système"},
	"userAgent": {"Browser’s description", "Description du navigateur"}, "lastSeenAt": {"Last used", "Dernière utilisation"},
	"expiresAt": {"Ends", "Fin"}, "firstSeen": {"First seen", "Vu la première fois"}, "lastSeen": {"Last seen", "Vu la dernière fois"},
	"notifiedAt": {"New-browser email sent", "Courriel de nouveau navigateur envoyé"}, "application": {"Application", "Application"},
	"clientId": {"Application identifier", "Identifiant de l’application"}, "scopes": {"What it may read", "Ce qu’elle peut lire"},
	"grantedAt": {"Allowed", "Autorisée"}, "revokedAt": {"Ended", "Terminée"}, "topic": {"Topic", "Sujet"}, "name": {"Name", "Nom"},
	"question": {"Question", "Question"}, "agentName": {"Agent", "Conseiller ou conseillère"}, "startedAt": {"Started", "Début"},
	"endedAt": {"Ended", "Fin"}, "messages": {"Messages", "Messages"}, "at": {"When", "Quand"}, "sender": {"From", "De"},
	"text": {"Text", "Texte"}, "event": {"Event", "Événement"}, "outcome": {"Outcome", "Résultat"}, "ip": {"IP address", "Adresse IP"},
	"detail": {"Detail", "Détail"}, "actor": {"By", "Par"},
	"contactChanges": {"Changes waiting for their code", "Changements en attente de leur code"},
	"emailUndos":     {"Email changes that can be undone", "Changements de courriel annulables"},
	"newValue":       {"New value", "Nouvelle valeur"}, "formerEmail": {"Former email", "Ancien courriel"},
	"newEmail": {"New email", "Nouveau courriel"}, "usedAt": {"Used", "Utilisé"},
}

func label(key, lang string) string {
	l, ok := labels[key]
	if !ok {
		return key
	}
	if lang == "fr" {
		return l[1]
	}
	return l[0]
}

// pageTexts are the page's own sentences.
var pageTexts = map[string][2]string{
	"title":  {"Your data at %s", "Vos données chez %s"},
	"intro":  {"What %s keeps on your online account, as of %s. The JSON file holds the same.", "Ce que %s conserve sur votre compte en ligne, en date du %s. Le fichier JSON contient la même chose."},
	"none":   {"Nothing.", "Aucun élément."},
	"yes":    {"Yes", "Oui"},
	"no":     {"No", "Non"},
	"item":   {"Item %d", "Élément %d"},
	"fmtKey": {"2006-01-02 15:04 UTC", "2006-01-02 15\u00a0h\u00a004 UTC"},
}

func text(key, lang string) string {
	t := pageTexts[key]
	if lang == "fr" {
		return t[1]
	}
	return t[0]
}

// Page renders an export's JSON document as an HTML page in lang ("en" or
// "fr"), for the brand named brandName.
func Page(doc []byte, lang, brandName string) ([]byte, error) {
	var d struct {
		GeneratedAt time.Time                  `json:"generatedAt"`
		Sections    map[string]json.RawMessage `json:"sections"`
	}
	if err := json.Unmarshal(doc, &d); err != nil {
		return nil, fmt.Errorf("export page: %w", err)
	}
	lang = language(lang)
	names := make([]string, 0, len(d.Sections))
	for n := range d.Sections {
		names = append(names, n)
	}
	slices.SortFunc(names, func(a, b string) int {
		ia, ib := slices.Index(sectionOrder, a), slices.Index(sectionOrder, b)
		if ia < 0 {
			ia = len(sectionOrder)
		}
		if ib < 0 {
			ib = len(sectionOrder)
		}
		if ia != ib {
			return ia - ib
		}
		return strings.Compare(a, b)
	})
	var b strings.Builder
	htmlLang := "en-CA"
	if lang == "fr" {
		htmlLang = "fr-CA"
	}
	title := fmt.Sprintf(text("title", lang), brandName)
	fmt.Fprintf(&b, `<!doctype html>
<html lang="%s"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>%s</title>
<style>body{font:16px/1.5 system-ui,sans-serif;color:#1a1a1a;background:#fff;margin:0 auto;padding:1rem;max-width:60rem}
h1{font-size:1.6rem}h2{font-size:1.3rem;margin-top:2rem;border-bottom:1px solid #767676}h3{font-size:1.05rem}
dl{display:grid;grid-template-columns:minmax(8rem,max-content) 1fr;gap:.25rem 1rem;margin:.5rem 0 1rem}
dt{font-weight:600}dd{margin:0;overflow-wrap:anywhere}ol{padding-left:1.25rem}
@media (max-width:30rem){dl{grid-template-columns:1fr}dd{margin-bottom:.5rem}}</style></head>
<body><main><h1>%s</h1>
<p>%s</p>
`, htmlLang, html.EscapeString(title), html.EscapeString(title),
		html.EscapeString(fmt.Sprintf(text("intro", lang), brandName, d.GeneratedAt.UTC().Format(text("fmtKey", lang)))))
	for i, n := range names {
		id := fmt.Sprintf("s%d", i)
		fmt.Fprintf(&b, "<section aria-labelledby=\"%s\"><h2 id=\"%s\">%s</h2>\n", id, id, html.EscapeString(label(n, lang)))
		var v any
		if err := json.Unmarshal(d.Sections[n], &v); err != nil {
			return nil, err
		}
		writeValue(&b, v, lang, 3)
		b.WriteString("</section>\n")
	}
	b.WriteString("</main></body></html>\n")
	return []byte(b.String()), nil
}

// writeValue writes a section's value: an object as a description list, a
// list of objects as numbered items, anything else as text.
func writeValue(b *strings.Builder, v any, lang string, level int) {
	switch x := v.(type) {
	case map[string]any:
		writeObject(b, x, lang, level)
	case []any:
		if len(x) == 0 {
			fmt.Fprintf(b, "<p>%s</p>\n", html.EscapeString(text("none", lang)))
			return
		}
		if _, ok := x[0].(map[string]any); !ok {
			fmt.Fprintf(b, "<p>%s</p>\n", html.EscapeString(scalar(x, lang)))
			return
		}
		b.WriteString("<ol>\n")
		for i, item := range x {
			fmt.Fprintf(b, "<li><h%d>%s</h%d>\n", min(level, 6), html.EscapeString(fmt.Sprintf(text("item", lang), i+1)), min(level, 6))
			writeValue(b, item, lang, level+1)
			b.WriteString("</li>\n")
		}
		b.WriteString("</ol>\n")
	default:
		fmt.Fprintf(b, "<p>%s</p>\n", html.EscapeString(scalar(x, lang)))
	}
}

func writeObject(b *strings.Builder, o map[string]any, lang string, level int) {
	keys := make([]string, 0, len(o))
	for k := range o {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var nested []string
	b.WriteString("<dl>\n")
	for _, k := range keys {
		if list, ok := o[k].([]any); ok && len(list) > 0 {
			if _, isObj := list[0].(map[string]any); isObj {
				nested = append(nested, k)
				continue
			}
		}
		fmt.Fprintf(b, "<dt>%s</dt><dd>%s</dd>\n", html.EscapeString(label(k, lang)), html.EscapeString(scalar(o[k], lang)))
	}
	b.WriteString("</dl>\n")
	for _, k := range nested {
		fmt.Fprintf(b, "<h%d>%s</h%d>\n", min(level, 6), html.EscapeString(label(k, lang)), min(level, 6))
		writeValue(b, o[k], lang, level+1)
	}
}

// scalar writes a value as text: times in UTC, booleans as words, lists
// joined.
func scalar(v any, lang string) string {
	switch x := v.(type) {
	case nil:
		return ""
	case bool:
		if x {
			return text("yes", lang)
		}
		return text("no", lang)
	case string:
		if t, err := time.Parse(time.RFC3339Nano, x); err == nil && len(x) >= 20 {
			return t.UTC().Format(text("fmtKey", lang))
		}
		return x
	case []any:
		parts := make([]string, 0, len(x))
		for _, e := range x {
			parts = append(parts, scalar(e, lang))
		}
		return strings.Join(parts, ", ")
	case map[string]any:
		out, _ := json.Marshal(x)
		return string(out)
	default:
		return fmt.Sprint(x)
	}
}
