package notify

import (
	"context"
	"errors"
	"fmt"
	"html"
	"io/fs"
	"regexp"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"
	"unicode/utf8"

	"guichet/internal/testenv"
)

const (
	testCode = "864209"
	testLink = "https://account.example.ca/reset?token=S3CR3T-T0KEN&lang=x"
)

func sampleData(template string) map[string]string {
	data := map[string]string{DataFirstName: "Alex"}
	for _, k := range catalogue[template].required {
		switch k {
		case DataCode:
			data[k] = testCode
		case DataLink:
			data[k] = testLink
		case DataExpires:
			data[k] = "2026-12-01"
		case DataWhen:
			data[k] = "2026-11-29T06:20:00Z"
		case DataAddress:
			data[k] = "alex.new@example.com"
		case DataTranscript, DataQuestion, DataAnswer:
			data[k] = "Alex — <b>first</b> line\nMarie — second line"
		}
	}
	return data
}

// TestEveryTemplateForEveryBrandAndLanguage fails when a template is
// missing or broken for any configured brand, language and channel.
func TestEveryTemplateForEveryBrandAndLanguage(t *testing.T) {
	reg := testenv.Brands(t)
	if len(reg.All()) < 5 {
		t.Fatalf("only %d brands configured", len(reg.All()))
	}
	greeting := map[string]string{"en": "Hello Alex,", "fr": "Bonjour Alex,"}
	for _, b := range reg.All() {
		for _, lang := range languages {
			for _, name := range Templates() {
				for _, ch := range catalogue[name].channels {
					t.Run(b.ID+"/"+lang+"/"+name+"/"+string(ch), func(t *testing.T) {
						data := sampleData(name)
						out, err := Render(b, lang, name, ch, data)
						if err != nil {
							t.Fatal(err)
						}
						// The brand's name in the message's language, never the other one.
						brandName := b.Name.For(lang)
						if other := b.Name.For(map[string]string{"en": "fr", "fr": "en"}[lang]); other != brandName {
							for part, text := range map[string]string{"subject": out.Subject, "text": out.Text, "html": out.HTML, "sms": out.SMS} {
								if strings.Contains(text, other) {
									t.Errorf("%s holds the brand's %s name %q", part, map[string]string{"en": "fr", "fr": "en"}[lang], other)
								}
							}
						}
						var wants []string
						if code := data[DataCode]; code != "" {
							wants = append(wants, code)
						}
						if link := data[DataLink]; link != "" && ch == ChannelEmail {
							wants = append(wants, link)
						}
						if ch == ChannelSMS {
							if out.SMS == "" || out.Subject != "" || out.HTML != "" {
								t.Fatalf("sms rendering: %+v", out)
							}
							if n := utf8.RuneCountInString(out.SMS); n > 200 {
								t.Errorf("sms is %d characters long", n)
							}
							if miss, ok := containsAll(out.SMS, append(wants, brandName)...); !ok {
								t.Errorf("sms lacks %q: %s", miss, out.SMS)
							}
							checkTypography(t, lang, "sms", out.SMS)
							return
						}
						if out.Subject == "" || strings.ContainsAny(out.Subject, "\r\n") || !strings.Contains(out.Subject, brandName) {
							t.Errorf("subject %q", out.Subject)
						}
						// French subjects name the brand first, as Quebec
						// senders do: « belairdirect : votre code de sécurité ».
						if lang == "fr" && !strings.HasPrefix(out.Subject, brandName+"\u00a0: ") {
							t.Errorf("French subject %q does not start with %q", out.Subject, brandName+" : ")
						}
						if noReply := map[string]string{"en": "Please do not reply", "fr": "Veuillez ne pas y répondre"}[lang]; !strings.Contains(out.Text, noReply) ||
							!strings.Contains(html.UnescapeString(out.HTML), noReply) {
							t.Errorf("no %q in the message", noReply)
						}
						phone := b.Phone("")
						if miss, ok := containsAll(out.Text, append(wants, brandName, phone, greeting[lang])...); !ok {
							t.Errorf("text part lacks %q:\n%s", miss, out.Text)
						}
						visible := html.UnescapeString(out.HTML)
						if miss, ok := containsAll(visible, append(wants, brandName, phone, greeting[lang],
							`<html lang="`+lang+`">`, b.Theme.Primary, b.Theme.PrimaryText, phoneURI(phone))...); !ok {
							t.Errorf("html part lacks %q", miss)
						}
						for _, bad := range []string{"<no value>", "ZgotmplZ", "{{", "<script"} {
							if strings.Contains(out.HTML, bad) || strings.Contains(out.Text, bad) {
								t.Errorf("rendering holds %q", bad)
							}
						}
						checkTypography(t, lang, "subject", out.Subject)
						checkTypography(t, lang, "text", out.Text)
						checkTypography(t, lang, "html", visibleText(out.HTML))
					})
				}
			}
		}
	}
}

var (
	urlPattern = regexp.MustCompile(`(https?|tel):\S+`)
	tagPattern = regexp.MustCompile(`<[^>]*>`)
)

func visibleText(h string) string {
	return html.UnescapeString(tagPattern.ReplaceAllString(h, " "))
}

// checkTypography reports typographyProblems.
func checkTypography(t *testing.T, lang, part, s string) {
	t.Helper()
	for _, p := range typographyProblems(lang, s) {
		t.Errorf("%s: %s", part, p)
	}
}

// frenchUnit is a number and its unit with an ordinary space between them,
// which French separates with a no-break space so that a line never starts
// with the unit (« 6 chiffres », « 10 minutes », « 24 heures »).
var frenchUnit = regexp.MustCompile(`\d[ \t\n](chiffres?|caractères?|secondes?|minutes?|heures?|jours?|semaines?|mois|ans?|h|min|\$|%)(\P{L}|$)`)

// typographyProblems applies Canadian French typography: a no-break space
// before : ; ! ? and », after «, and between a number and its unit. English
// must not put a space before : ; ! ?.
func typographyProblems(lang, s string) []string {
	var problems []string
	s = urlPattern.ReplaceAllString(s, "URL")
	if lang == "fr" {
		for _, m := range frenchUnit.FindAllString(s, -1) {
			problems = append(problems, fmt.Sprintf("no no-break space between a number and its unit in %q", m))
		}
	}
	runes := []rune(s)
	for i, r := range runes {
		before, after := rune(0), rune(0)
		if i > 0 {
			before = runes[i-1]
		}
		if i+1 < len(runes) {
			after = runes[i+1]
		}
		context := string(runes[max(0, i-20):min(len(runes), i+5)])
		if lang == "fr" {
			switch {
			case strings.ContainsRune(":;!?»", r) && before != '\u00a0' && before != '\u202f':
				problems = append(problems, fmt.Sprintf("no no-break space before %q in %q", r, context))
			case r == '«' && after != '\u00a0':
				problems = append(problems, fmt.Sprintf("no no-break space after « in %q", context))
			}
		} else if strings.ContainsRune(":;!?", r) && (before == ' ' || before == '\u00a0') {
			problems = append(problems, fmt.Sprintf("English with a space before %q in %q", r, context))
		}
	}
	return problems
}

func TestTypographyCheckCatchesMistakes(t *testing.T) {
	cases := []struct {
		lang, s string
		ok      bool
	}{
		{"fr", "Code\u00a0: 1", true},
		{"fr", "«\u00a0Oui\u00a0» et non\u00a0!", true},
		{"fr", "Voir https://x.example/a?b=c:d", true},
		{"fr", "Code : 1", false},
		{"fr", "Code: 1", false},
		{"fr", "Bienvenue !", false},
		{"fr", "«\u00a0Oui»", false},
		{"fr", "«Oui\u00a0»", false},
		{"fr", "Oui\u00a0; non", true},
		{"fr", "Oui ; non", false},
		{"fr", "Oui; non", false},
		{"fr", "un code de 6\u00a0chiffres valide 10\u00a0minutes", true},
		{"fr", "un code de 6 chiffres", false},
		{"fr", "valide 10 minutes", false},
		{"fr", "pendant 24 heures", false},
		{"fr", "pendant 24\nheures", false},
		{"en", "Code: 1", true},
		{"en", "Code : 1", false},
	}
	for _, c := range cases {
		if got := typographyProblems(c.lang, c.s); (len(got) == 0) != c.ok {
			t.Errorf("typographyProblems(%s, %q) = %q, want ok=%v", c.lang, c.s, got, c.ok)
		}
	}
}

// TestMissingTemplateFileFailsToLoad removes each file in turn.
func TestMissingTemplateFileFailsToLoad(t *testing.T) {
	full := fstest.MapFS{}
	err := fs.WalkDir(templateFiles, "templates", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(templateFiles, path)
		full[path] = &fstest.MapFile{Data: data}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := parseTemplates(full); err != nil {
		t.Fatalf("the embedded templates do not load: %v", err)
	}
	var want []string
	for _, lang := range languages {
		want = append(want, "templates/"+lang+"/_layout.txt", "templates/"+lang+"/_layout.html")
		for _, name := range Templates() {
			want = append(want, "templates/"+lang+"/"+name+".txt", "templates/"+lang+"/"+name+".html")
		}
	}
	for path := range full {
		if !slices.Contains(want, path) {
			t.Errorf("%s belongs to no template", path)
		}
	}
	for _, path := range want {
		partial := fstest.MapFS{}
		for p, f := range full {
			if p != path {
				partial[p] = f
			}
		}
		if _, err := parseTemplates(partial); err == nil {
			t.Errorf("templates load without %s", path)
		}
	}
	// A file that lacks a block is refused too.
	broken := fstest.MapFS{}
	for p, f := range full {
		broken[p] = f
	}
	broken["templates/fr/reset-code.txt"] = &fstest.MapFile{Data: []byte(`{{define "subject"}}x{{end}}{{define "text"}}y{{end}}`)}
	if _, err := parseTemplates(broken); err == nil || !strings.Contains(err.Error(), `"sms"`) {
		t.Errorf("a code template without an sms block loads: %v", err)
	}
}

func TestRenderRefusesWhatDoesNotExist(t *testing.T) {
	b := testenv.Brand(t, testenv.Brands(t), "belair")
	cases := []struct {
		lang, template string
		ch             Channel
	}{
		{"de", TemplateResetCode, ChannelEmail},
		{"en", "welcome", ChannelEmail},
		{"en", TemplatePasswordChanged, ChannelSMS},
	}
	for _, c := range cases {
		if _, err := Render(b, c.lang, c.template, c.ch, nil); err == nil {
			t.Errorf("Render(%s, %s, %s) succeeded", c.lang, c.template, c.ch)
		}
	}
}

func TestRenderDetails(t *testing.T) {
	b := testenv.Brand(t, testenv.Brands(t), "belair")
	// The province picks the phone; minutes default to the code validity.
	out, err := Render(b, "en", TemplateRegistrationCode, ChannelEmail, map[string]string{DataCode: "111222", DataProvince: "qc"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.Text, b.Phone("qc")) || !strings.Contains(out.Text, "expires in 10 minutes") {
		t.Errorf("text:\n%s", out.Text)
	}
	if !strings.HasPrefix(out.Text, "Hello,\n") {
		t.Errorf("without a first name the greeting is plain: %q", out.Text[:20])
	}
	// HTML escapes what the caller passed.
	out, err = Render(b, "en", TemplatePasswordChanged, ChannelEmail, map[string]string{DataFirstName: `<b>Al"ex</b>`})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.HTML, "<b>Al") || !strings.Contains(out.HTML, "&lt;b&gt;Al&#34;ex&lt;/b&gt;") {
		t.Errorf("first name not escaped in HTML")
	}
	if !strings.Contains(out.Text, `<b>Al"ex</b>`) {
		t.Errorf("plain text must keep the name as is")
	}
	// Optional link: shown when given.
	with, _ := Render(b, "fr", TemplateLockedAccount, ChannelEmail, map[string]string{DataLink: testLink})
	without, _ := Render(b, "fr", TemplateLockedAccount, ChannelEmail, nil)
	if !strings.Contains(with.Text, testLink) || strings.Contains(without.Text, "https://account") {
		t.Errorf("locked-account link handling")
	}
}

// TestInvitationExpiryDate: the invitations show the expiry date as people
// read it in each language (« 1er » the first of the month in French).
func TestInvitationExpiryDate(t *testing.T) {
	b, _ := testenv.Brands(t).ByID("belair")
	for _, c := range []struct{ lang, date, want string }{
		{"en", "2026-12-01", "December 1, 2026"},
		{"fr", "2026-12-01", "1er\u00a0décembre 2026"},
		{"fr", "2027-03-09", "9\u00a0mars 2027"},
	} {
		for _, name := range []string{TemplateInvitationEdoc, TemplateInvitationBA, TemplateInvitationMrkt} {
			out, err := Render(b, c.lang, name, ChannelEmail, map[string]string{DataLink: testLink, DataExpires: c.date})
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(out.Text, c.want) || !strings.Contains(html.UnescapeString(out.HTML), c.want) {
				t.Errorf("%s %s: no %q in\n%s", c.lang, name, c.want, out.Text)
			}
		}
	}
	if _, err := Enqueue(context.Background(), nil, Message{Brand: "belair", Language: "en", Channel: ChannelEmail,
		To: "a@example.com", Template: TemplateInvitationBA, Data: map[string]string{DataLink: testLink, DataExpires: "soon"}}); !errors.Is(err, ErrInvalidMessage) {
		t.Errorf("expires not a date: %v", err)
	}
}

// TestChatTextsKeepLinesAndStayText: a chat text keeps its line breaks in
// the plain text and is escaped in the HTML (a visitor's markup is never
// rendered); other data keys still refuse line breaks.
func TestChatTextsKeepLinesAndStayText(t *testing.T) {
	reg := testenv.Brands(t)
	b := reg.All()[0]
	data := map[string]string{DataQuestion: "Line one\n<script>x</script>", DataAnswer: "Answer\nline two"}
	out, err := Render(b, "fr", TemplateChatOfflineReply, ChannelEmail, data)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.Text, "Line one\n<script>x</script>") || !strings.Contains(out.Text, "Answer\nline two") {
		t.Fatalf("text lost the lines: %s", out.Text)
	}
	if strings.Contains(out.HTML, "<script>") || !strings.Contains(out.HTML, "&lt;script&gt;") {
		t.Fatalf("html did not escape the question: %s", out.HTML)
	}
	m := Message{Brand: b.ID, Language: "en", Channel: ChannelEmail, To: "a@example.com", Template: TemplateChatOfflineReply, Data: data}
	if _, err := m.validate(time.Now()); err != nil {
		t.Fatalf("chat texts refused: %v", err)
	}
	m.Data = map[string]string{DataQuestion: "q", DataAnswer: "a", DataFirstName: "Alex\nBcc: x"}
	if _, err := m.validate(time.Now()); err == nil {
		t.Fatal("a line break in firstName was accepted")
	}
}

// TestNewDeviceNotice: the time in the province's zone and the language's
// words, the browser and the system, the link to secure the account.
func TestNewDeviceNotice(t *testing.T) {
	b, _ := testenv.Brands(t).ByID("belair")
	for _, c := range []struct{ lang, province, want, device string }{
		{"en", "on", "November 29, 2026, 1:20 a.m. (Eastern time)", "Firefox on Linux"},
		{"fr", "qc", "29\u00a0novembre 2026 à 1\u00a0h\u00a020 (heure de l’Est)", "Firefox sur Linux"},
		{"en", "bc", "November 28, 2026, 10:20 p.m. (Pacific time)", "Firefox on Linux"},
	} {
		out, err := Render(b, c.lang, TemplateNewDevice, ChannelEmail, map[string]string{DataWhen: "2026-11-29T06:20:00Z", DataLink: testLink,
			DataProvince: c.province, DataBrowser: "Firefox", DataSystem: "Linux"})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.Text, c.want) || !strings.Contains(out.Text, c.device) || !strings.Contains(out.HTML, "reset?token=") {
			t.Errorf("%s/%s: %s", c.lang, c.province, out.Text)
		}
	}
	out, err := Render(b, "en", TemplateNewDevice, ChannelEmail, map[string]string{DataWhen: "2026-11-29T06:20:00Z", DataLink: testLink})
	if err != nil || !strings.Contains(out.Text, "An unknown browser, November 29") {
		t.Fatalf("no browser named: %v %s", err, out.Text)
	}
	if _, err := (Message{Brand: "belair", Language: "en", Channel: ChannelEmail, To: "a@example.com", Template: TemplateNewDevice,
		Data: map[string]string{DataLink: testLink, DataWhen: "yesterday"}}).validate(time.Now()); !errors.Is(err, ErrInvalidMessage) {
		t.Fatalf("a when that is no instant: %v", err)
	}
}
