package notify

import (
	"bytes"
	"embed"
	"fmt"
	htmltemplate "html/template"
	"io/fs"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	texttemplate "text/template"
	"time"
	_ "time/tzdata" // the provinces' time zones in any image (longTime)

	"guichet/internal/brand"
)

// Templates live in templates/<language>/: for each template, <name>.txt
// (text/template: blocks "subject", "text" and, for SMS templates, "sms")
// and <name>.html (html/template: block "content"), wrapped by the
// language's _layout.txt and _layout.html (greeting, brand header, phone,
// signature). Brand details come from the brand file, so one set of files
// serves every brand.
//
//go:embed all:templates
var templateFiles embed.FS

// defaultCodeMinutes is how long a code is valid (design.md "Codes") when
// the caller does not say.
const defaultCodeMinutes = "10"

// Rendered is a message ready to send: Subject, Text and HTML for an email,
// SMS for a text message.
type Rendered struct {
	Subject string
	Text    string
	HTML    string
	SMS     string
}

// view is what a template sees.
type view struct {
	Brand     brandView
	Language  string
	Subject   string // set before the HTML part is rendered, for <title>
	Code      string
	Link      string
	FirstName string
	Minutes   string
	Expires   string // DataExpires in the language's long form
	// When is DataWhen in the language's long form, in the province's time
	// zone; Browser and System name a browser and its system.
	When    string
	Browser string
	System  string
	// Address is DataAddress: a new email address or phone number.
	Address string
	// Chat texts (several lines; the HTML keeps their line breaks).
	Transcript string
	Question   string
	Answer     string
}

type brandView struct {
	ID          string
	Name        string
	Phone       string
	PhoneURI    htmltemplate.URL // tel:+1..., built from digits only
	Website     string
	Privacy     string
	Primary     string
	PrimaryText string
	Accent      string
	Background  string
	Text        string
}

type templatePair struct {
	text *texttemplate.Template
	html *htmltemplate.Template
}

// loadTemplates parses every template of every language once.
var loadTemplates = sync.OnceValues(func() (map[string]templatePair, error) {
	return parseTemplates(templateFiles)
})

func parseTemplates(files fs.FS) (map[string]templatePair, error) {
	sets := map[string]templatePair{}
	for _, lang := range languages {
		dir := "templates/" + lang + "/"
		layoutText, err := fs.ReadFile(files, dir+"_layout.txt")
		if err != nil {
			return nil, fmt.Errorf("notify templates: %w", err)
		}
		layoutHTML, err := fs.ReadFile(files, dir+"_layout.html")
		if err != nil {
			return nil, fmt.Errorf("notify templates: %w", err)
		}
		for _, name := range Templates() {
			pair, err := parsePair(files, dir, name, string(layoutText), string(layoutHTML))
			if err != nil {
				return nil, fmt.Errorf("notify templates: %s%s: %w", dir, name, err)
			}
			sets[lang+"/"+name] = pair
		}
	}
	return sets, nil
}

func parsePair(files fs.FS, dir, name, layoutText, layoutHTML string) (templatePair, error) {
	needed := []string{"layout", "subject", "text"}
	if sentBy(name, ChannelSMS) {
		needed = append(needed, "sms")
	}
	t, err := parseWithLayout(files, dir, name+".txt", texttemplate.New(name).Option("missingkey=error"), layoutText, needed)
	if err != nil {
		return templatePair{}, err
	}
	h, err := parseWithLayout(files, dir, name+".html", htmltemplate.New(name).Option("missingkey=error"), layoutHTML, []string{"layout", "content"})
	if err != nil {
		return templatePair{}, err
	}
	return templatePair{text: t, html: h}, nil
}

// parsed is what a text/template and an html/template *Template share here.
type parsed[T any] interface {
	comparable
	Parse(text string) (T, error)
	Lookup(name string) T
}

// parseWithLayout parses the layout, then dir/file, into t, and checks that
// every block of blocks is defined.
func parseWithLayout[T parsed[T]](files fs.FS, dir, file string, t T, layout string, blocks []string) (T, error) {
	var none T
	body, err := fs.ReadFile(files, dir+file)
	if err != nil {
		return none, err
	}
	if _, err = t.Parse(layout); err == nil {
		_, err = t.Parse(string(body))
	}
	if err != nil {
		return none, err
	}
	for _, block := range blocks {
		if t.Lookup(block) == none {
			return none, fmt.Errorf("%s defines no %q block", file, block)
		}
	}
	return t, nil
}

// sentBy tells whether a template is sent on a channel.
func sentBy(template string, ch Channel) bool {
	return slices.Contains(catalogue[template].channels, ch)
}

// Render renders a template for a brand, a language and a channel: Subject,
// Text and HTML for ChannelEmail, SMS for ChannelSMS.
func Render(b *brand.Brand, language, template string, ch Channel, data map[string]string) (Rendered, error) {
	sets, err := loadTemplates()
	if err != nil {
		return Rendered{}, err
	}
	pair, ok := sets[language+"/"+template]
	if !ok {
		return Rendered{}, fmt.Errorf("notify: no template %q in language %q", template, language)
	}
	if !sentBy(template, ch) {
		return Rendered{}, fmt.Errorf("notify: template %s is not sent by %q", template, ch)
	}
	v := newView(b, language, template, data)
	var out Rendered
	if ch == ChannelSMS {
		sms, err := execText(pair.text, "sms", v)
		if err != nil {
			return Rendered{}, err
		}
		out.SMS = collapseSpaces(sms)
		return out, nil
	}
	subject, err := execText(pair.text, "subject", v)
	if err != nil {
		return Rendered{}, err
	}
	out.Subject = collapseSpaces(subject)
	v.Subject = out.Subject
	text, err := execText(pair.text, "layout", v)
	if err != nil {
		return Rendered{}, err
	}
	out.Text = tidyText(text)
	var html bytes.Buffer
	if err := pair.html.ExecuteTemplate(&html, "layout", v); err != nil {
		return Rendered{}, fmt.Errorf("notify: render %s html: %w", template, err)
	}
	out.HTML = html.String()
	return out, nil
}

func execText(t *texttemplate.Template, block string, v view) (string, error) {
	var b strings.Builder
	if err := t.ExecuteTemplate(&b, block, v); err != nil {
		return "", fmt.Errorf("notify: render %s %s: %w", t.Name(), block, err)
	}
	return b.String(), nil
}

func newView(b *brand.Brand, language, template string, data map[string]string) view {
	province := data[DataProvince]
	phone := b.Phone(province)
	v := view{
		Brand: brandView{
			ID:          b.ID,
			Name:        b.Name.For(language),
			Phone:       phone,
			PhoneURI:    htmltemplate.URL(phoneURI(phone)),
			Website:     b.MarketingURL(province, language),
			Privacy:     b.Links.Privacy.For(language),
			Primary:     b.Theme.Primary,
			PrimaryText: b.Theme.PrimaryText,
			Accent:      b.Theme.Accent,
			Background:  b.Theme.Background,
			Text:        b.Theme.Text,
		},
		Language:  language,
		Code:      data[DataCode],
		Link:      data[DataLink],
		FirstName: data[DataFirstName],
		Minutes:   data[DataMinutes],
		Expires:   longDate(data[DataExpires], language),
		When:      longTime(data[DataWhen], province, language),
		Browser:   data[DataBrowser],
		System:    data[DataSystem],
		Address:   data[DataAddress],

		Transcript: data[DataTranscript],
		Question:   data[DataQuestion],
		Answer:     data[DataAnswer],
	}
	if v.Minutes == "" && (template == TemplateRegistrationCode || template == TemplateResetCode || template == TemplateConfirmCode) {
		v.Minutes = defaultCodeMinutes
	}
	return v
}

var frenchMonths = []string{"janvier", "février", "mars", "avril", "mai", "juin", "juillet", "août", "septembre",
	"octobre", "novembre", "décembre"}

// longDate writes a YYYY-MM-DD date as people read it: "December 8, 2026",
// « 8 décembre 2026 » (« 1er » the first of the month); "" stays "".
func longDate(date, language string) string {
	d, err := time.Parse(time.DateOnly, date)
	if err != nil {
		return ""
	}
	if language == "fr" {
		day := strconv.Itoa(d.Day())
		if d.Day() == 1 {
			day = "1er"
		}
		return day + "\u00a0" + frenchMonths[d.Month()-1] + " " + strconv.Itoa(d.Year())
	}
	return d.Format("January 2, 2006")
}

// zone is a province's time zone, named for people.
type zone struct{ location, en, fr string }

var provinceZones = map[string]zone{
	"on": {"America/Toronto", "Eastern time", "heure de l’Est"}, "qc": {"America/Toronto", "Eastern time", "heure de l’Est"},
	"nb": {"America/Halifax", "Atlantic time", "heure de l’Atlantique"}, "ns": {"America/Halifax", "Atlantic time", "heure de l’Atlantique"},
	"pe": {"America/Halifax", "Atlantic time", "heure de l’Atlantique"}, "nl": {"America/St_Johns", "Newfoundland time", "heure de Terre-Neuve"},
	"mb": {"America/Winnipeg", "Central time", "heure du Centre"}, "sk": {"America/Regina", "Central time", "heure du Centre"},
	"ab": {"America/Edmonton", "Mountain time", "heure des Rocheuses"}, "bc": {"America/Vancouver", "Pacific time", "heure du Pacifique"},
}

// longTime writes an RFC 3339 instant as people of the province read it:
// "November 29, 2026, 1:20 a.m. (Eastern time)", « 29 novembre 2026 à
// 1 h 20 (heure de l’Est) »; "" stays "".
func longTime(instant, province, language string) string {
	t, err := time.Parse(time.RFC3339, instant)
	if err != nil {
		return ""
	}
	z, ok := provinceZones[province]
	if !ok {
		z = provinceZones["on"]
	}
	if loc, err := time.LoadLocation(z.location); err == nil {
		t = t.In(loc)
	}
	date := longDate(t.Format(time.DateOnly), language)
	if language == "fr" {
		return fmt.Sprintf("%s à %d\u00a0h\u00a0%02d (%s)", date, t.Hour(), t.Minute(), z.fr)
	}
	clock := strings.NewReplacer("AM", "a.m.", "PM", "p.m.").Replace(t.Format("3:04 PM"))
	return fmt.Sprintf("%s, %s (%s)", date, clock, z.en)
}

// phoneURI turns "1 800-555-0199" into "tel:+18005550199".
func phoneURI(phone string) string {
	var b strings.Builder
	b.WriteString("tel:+")
	for _, r := range phone {
		if r >= '0' && r <= '9' {
			b.WriteRune(r)
		}
	}
	return b.String()
}

var (
	spaceRun   = regexp.MustCompile(`[ \t\r\n]+`)
	blankLines = regexp.MustCompile(`\n{3,}`)
	lineEndWS  = regexp.MustCompile(`[ \t]+\n`)
)

// collapseSpaces makes one line of a subject or an SMS. Only ASCII white
// space is collapsed: no-break spaces are French typography.
func collapseSpaces(s string) string {
	return strings.TrimSpace(spaceRun.ReplaceAllString(s, " "))
}

// tidyText trims trailing spaces and runs of blank lines from a plain-text
// body.
func tidyText(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = lineEndWS.ReplaceAllString(s, "\n")
	s = blankLines.ReplaceAllString(s, "\n\n")
	return strings.TrimSpace(s) + "\n"
}
