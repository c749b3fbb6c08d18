package brand

import (
	"maps"
	"net/url"
	"slices"
)

// SiteConfig is the JSON the server injects into index.html for the SPA
// (docs/architecture.md "Site configuration handed to the SPA").
type SiteConfig struct {
	Brand    PublicBrand `json:"brand"`
	Province string      `json:"province"`
	Language string      `json:"language"`
	Webview  bool        `json:"webview"`
	Dev      bool        `json:"dev"`
}

// PublicBrand is what the browser may know of a brand: no host names, no
// other environment's URLs.
type PublicBrand struct {
	ID string `json:"id"`
	// Name is the brand's name in the page's language; Names has both, for
	// when the page changes language.
	Name               string            `json:"name"`
	Names              Name              `json:"names"`
	APIKey             string            `json:"apiKey"`
	DefaultProvince    string            `json:"defaultProvince"`
	DefaultLanguage    string            `json:"defaultLanguage"`
	Provinces          []PublicProvince  `json:"provinces"`
	Features           Features          `json:"features"`
	Links              Links             `json:"links"`
	ScreenShare        bool              `json:"screenShare"`
	Theme              Theme             `json:"theme"`
	PolicyNumber       PolicyNumber      `json:"policyNumber"`
	DriverLicenceMasks map[string]string `json:"driverLicenceMasks"`
	SSO                PublicSSO         `json:"sso"`
	// Promo is the promo panel in the page's language; Promos has both, for
	// when the page changes language. Both null when the brand has none.
	Promo  *PublicPromo  `json:"promo"`
	Promos *PublicPromos `json:"promos"`
	// SmartPinRoadblock is where a smart registration PIN used up leads
	// (Brand.SmartPinRoadblock).
	SmartPinRoadblock string `json:"smartPinRoadblock"`
}

// PublicPromo is one language's promo panel as the SPA shows it. Image is
// the path it is served at; ImageAlt empty means the image is decorative.
type PublicPromo struct {
	Title    string    `json:"title"`
	Text     string    `json:"text"`
	Image    string    `json:"image"`
	ImageAlt string    `json:"imageAlt"`
	Link     PromoLink `json:"link"`
}

// PublicPromos is the promo panel in each language.
type PublicPromos struct {
	EN PublicPromo `json:"en"`
	FR PublicPromo `json:"fr"`
}

// publicPromo is the panel of a language, with its image's served path.
func (b *Brand) publicPromo(language string) PublicPromo {
	p := b.Promo.For(language)
	return PublicPromo{Title: p.Title, Text: p.Text, Image: "/brands/" + b.ID + "/" + p.Image, ImageAlt: p.ImageAlt, Link: p.Link}
}

// PublicProvince is one province as the SPA sees it.
type PublicProvince struct {
	Key       string   `json:"key"`
	Languages []string `json:"languages"`
	Menu      bool     `json:"menu"`
	License   bool     `json:"license"`
	UBI       bool     `json:"ubi"`
	Phone     string   `json:"phone"`
	TimeZone  string   `json:"timeZone"`
	Hours     *Hours   `json:"hours"`
}

// PublicSSO is the login form of the current environment; External is true
// when the form posts to another site than Guichet.
type PublicSSO struct {
	LoginURL LocalizedURL `json:"loginUrl"`
	External bool         `json:"external"`
}

// Site builds the SiteConfig for a request. Province and language are
// resolved again (so an unchecked value cannot reach the page); env selects
// the SSO URLs (EnvDev or EnvProd; anything else reads as EnvProd).
func (b *Brand) Site(province, language string, webview, dev bool, env string) SiteConfig {
	province = b.ResolveProvince(province, "")
	language = b.ResolveLanguage(province, language, "")

	provinces := make([]PublicProvince, len(b.Provinces))
	for i, p := range b.Provinces {
		provinces[i] = PublicProvince{
			Key: p.Key, Languages: slices.Clone(p.Languages),
			Menu: p.Menu, License: p.License, UBI: p.UBI,
			Phone: p.Phone, TimeZone: p.TimeZone, Hours: p.Hours.clone(),
		}
	}
	links := b.Links
	links.Marketing = LocalizedURL{EN: b.MarketingURL(province, "en"), FR: b.MarketingURL(province, "fr")}
	pn := b.PolicyNumber
	pn.ByProvince = maps.Clone(pn.ByProvince)
	if pn.ByProvince == nil {
		pn.ByProvince = map[string]PolicyNumberFormat{}
	}
	masks := maps.Clone(b.DriverLicenceMasks)
	if masks == nil {
		masks = map[string]string{}
	}
	login := b.ssoEnvironment(env).LoginURL
	var promo *PublicPromo
	var promos *PublicPromos
	if b.Promo != nil {
		promos = &PublicPromos{EN: b.publicPromo("en"), FR: b.publicPromo("fr")}
		promo = inLanguage(language, &promos.EN, &promos.FR)
	}

	return SiteConfig{
		Brand: PublicBrand{
			ID: b.ID, Name: b.Name.For(language), Names: b.Name, APIKey: b.APIKey,
			DefaultProvince: b.DefaultProvince, DefaultLanguage: b.DefaultLanguage,
			Provinces: provinces, Features: b.Features, Links: links,
			ScreenShare: b.ScreenShare, Theme: b.Theme, PolicyNumber: pn,
			DriverLicenceMasks: masks,
			SSO:                PublicSSO{LoginURL: login, External: isAbsolute(login.EN) || isAbsolute(login.FR)},
			Promo:              promo,
			Promos:             promos,
			SmartPinRoadblock:  b.SmartPinRoadblock(),
		},
		Province: province,
		Language: language,
		Webview:  webview,
		Dev:      dev,
	}
}

func (h *Hours) clone() *Hours {
	if h == nil {
		return nil
	}
	c := *h
	if h.Saturday != nil {
		s := *h.Saturday
		c.Saturday = &s
	}
	return &c
}

func isAbsolute(raw string) bool {
	u, err := url.Parse(raw)
	return err == nil && u.IsAbs()
}
