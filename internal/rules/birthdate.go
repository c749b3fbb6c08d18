package rules

import (
	"strings"
	"time"
)

// Ages of spec §9, inclusive.
const (
	MinAge = 16
	MaxAge = 100
)

// DateOfBirth checks a date of birth (spec §5): strictly YYYY-MM-DD (ASCII
// digits, zero-padded), a real date of the Gregorian calendar (29 February
// only in leap years), and an age of 16 to 100 inclusive on today's date.
// today is read in its own location: pass the province's local time. Age
// counts completed years; a person born on 29 February has a birthday on
// 1 March in common years.
func DateOfBirth(s string, today time.Time) (string, error) {
	f := field{FieldBirthDate, KeyDateOfBirthFormat, KeyDateOfBirthRequired}
	s, err := f.present(s, strings.TrimSpace)
	if err != nil {
		return "", err
	}
	year, month, day, ok := parseDate(s)
	if !ok {
		return f.fail(KeyDateOfBirthFormat)
	}
	ty, tm, td := today.Date()
	age := ty - year
	if int(tm) < month || int(tm) == month && td < day {
		age--
	}
	if age < MinAge || age > MaxAge {
		return f.fail(KeyDateOfBirthAge)
	}
	return s, nil
}

// parseDate reads a strict YYYY-MM-DD calendar date.
func parseDate(s string) (year, month, day int, ok bool) {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return 0, 0, 0, false
	}
	number := func(part string) (int, bool) {
		n := 0
		for _, c := range []byte(part) {
			if c < '0' || c > '9' {
				return 0, false
			}
			n = n*10 + int(c-'0')
		}
		return n, true
	}
	year, okY := number(s[0:4])
	month, okM := number(s[5:7])
	day, okD := number(s[8:10])
	if !okY || !okM || !okD || month < 1 || month > 12 || day < 1 || day > daysIn(year, month) {
		return 0, 0, 0, false
	}
	return year, month, day, true
}

func daysIn(year, month int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}
