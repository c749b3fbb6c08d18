package rules

import (
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The blocklist is generated, not downloaded: the roots people build
// passwords from (common words, pet and first names, places, teams, brand and
// site names, English and French), keyboard walks and digit runs, each with
// the endings they add to satisfy composition rules. Entries are lower case
// because the check ignores case.

var blocklistClassicRoots = []string{
	"password", "passw0rd", "p@ssword", "p@ssw0rd", "pa$$word", "pass", "passwd", "mypassword",
	"welcome", "letmein", "qwerty", "qwertz", "azerty", "monkey", "dragon", "iloveyou", "admin",
	"administrator", "login", "master", "hello", "freedom", "whatever", "trustno1", "secret",
	"sunshine", "princess", "shadow", "superman", "batman", "spiderman", "starwars", "pokemon",
	"football", "baseball", "basketball", "soccer", "hockey", "golf", "tennis", "computer",
	"internet", "changeme", "default", "access", "test", "tester", "testing", "guest", "user",
	"root", "love", "lovely", "angel", "flower", "tigger", "cookie", "chocolate", "cheese",
	"butterfly", "purple", "orange", "banana", "apple", "summer", "winter", "spring", "autumn",
	"fall", "monday", "friday", "sunday", "family", "friends", "forever", "jesus", "blessed",
	"mustang", "ferrari", "porsche", "corvette", "harley", "yamaha", "honda", "toyota", "ford",
	"ranger", "hunter", "killer", "ninja", "samurai", "matrix", "mercedes", "maverick", "phoenix",
	"thunder", "diamond", "silver", "golden", "money", "lucky", "happy", "smile", "pepper",
	"ginger", "buster", "charlie", "bailey", "bella", "lucy", "daisy", "molly", "rocky", "duke",
	"coco", "simba", "oreo", "snoopy", "garfield", "mickey", "minnie", "disney", "barbie",
	"magic", "wizard", "merlin", "gandalf", "zelda", "mario", "minecraft", "fortnite", "roblox",
	"nintendo", "playstation", "xbox", "gamer", "player", "cowboy", "cowboys", "eagles",
	"yankees", "lakers", "liverpool", "arsenal", "chelsea", "barcelona", "madrid", "london",
	"paris", "newyork", "america", "england", "france", "mexico", "florida", "texas",
	"qazwsx", "1qaz2wsx", "1q2w3e4r", "1q2w3e", "zaq12wsx", "asdfgh", "asdfghjkl", "zxcvbnm",
	"qwertyuiop", "qwerty123", "abc", "abcd", "abcdef", "abcdefg", "abc123", "aaaaaa",
	"iloveu", "loveyou", "beautiful", "sweetheart", "babygirl", "baby", "darling", "honey",
	"sweety", "sexy", "hottie", "heaven", "rainbow", "unicorn", "dolphin", "tiger", "lion",
	"eagle", "falcon", "wolf", "bear", "horse", "kitty", "puppy", "doggy", "kitten",
	"coffee", "pizza", "bacon", "cupcake", "cherry", "peanut", "muffin", "sugar", "candy",
	"music", "guitar", "rock", "metal", "jordan", "michael", "jennifer", "soleil", "nicole",
	"ocean", "river", "mountain", "forest", "nature", "earth", "planet", "galaxy", "star",
	"moon", "sun", "fire", "water", "snow", "storm", "shadow", "ghost", "angel", "devil",
	"god", "lord", "king", "queen", "prince", "knight", "warrior", "soldier", "pirate",
	"captain", "doctor", "nurse", "teacher", "student", "school", "college", "office",
	"work", "business", "company", "manager", "boss", "security", "system", "network",
	"server", "database", "oracle", "windows", "linux", "apple", "google", "facebook",
	"instagram", "twitter", "youtube", "amazon", "netflix", "spotify", "microsoft",
	"samsung", "iphone", "android", "mobile", "phone", "online", "account", "private",
	"freedom", "liberty", "justice", "peace", "hope", "faith", "grace", "trust", "truth",
	"letmein", "openup", "opensesame", "gogogo", "nothing", "something", "anything",
	"everything", "hellohello", "goodbye", "thankyou", "please", "sorry", "yesyes",
}

var blocklistLocalRoots = []string{
	// Canada and its provinces, cities and teams.
	"canada", "canadian", "canadien", "canadiens", "quebec", "quebecois", "montreal",
	"toronto", "ottawa", "calgary", "edmonton", "vancouver", "winnipeg", "halifax", "regina",
	"saskatoon", "victoria", "hamilton", "laval", "gatineau", "sherbrooke", "levis",
	"trois-rivieres", "moncton", "fredericton", "charlottetown", "stjohns", "whitehorse",
	"yellowknife", "iqaluit", "ontario", "alberta", "manitoba", "saskatchewan",
	"novascotia", "newbrunswick", "newfoundland", "labrador", "yukon", "nunavut",
	"britishcolumbia", "maple", "mapleleaf", "mapleleafs", "leafs", "habs", "gohabsgo",
	"oilers", "flames", "canucks", "jets", "senators", "nordiques", "expos", "raptors",
	"bluejays", "alouettes", "roughriders", "tigercats", "stampeders", "redblacks",
	"lumberjack", "poutine", "tabarnak", "caribou", "beaver", "moose", "loonie", "toonie",
	"timhortons", "gretzky", "lemieux", "crosby", "mcdavid", "tremblay", "gagnon", "roy",
	"cote", "bouchard", "gauthier", "morin", "lavoie", "fortin", "gagne", "ouellet",
	"pelletier", "belanger", "levesque", "bergeron", "leblanc", "paquette", "girard",
	"simard", "boucher", "caron", "beaulieu", "cloutier", "dube", "poirier", "fournier",
	"lapointe", "leclerc", "lefebvre", "poulin", "thibault", "smith", "brown", "wilson",
	"macdonald", "taylor", "campbell", "anderson", "jones", "williams", "johnson", "martin",
	"lee", "white", "thompson", "clark", "walker", "robinson",
	// French words.
	"motdepasse", "motdepass", "bonjour", "bonsoir", "salut", "amour", "jetaime",
	"chocolat", "doudou", "loulou", "cheri", "cherie", "bebe", "princesse", "papillon",
	"chaton", "chouchou", "etoile", "liberte", "bienvenue", "printemps", "ete", "hiver",
	"automne", "janvier", "fevrier", "mars", "avril", "mai", "juin", "juillet", "aout",
	"septembre", "octobre", "novembre", "decembre", "famille", "maison", "voiture",
	"musique", "francais", "secret", "soleil", "lune", "etoiles", "coucou", "bisous",
	"nounours", "minou", "minette", "titi", "toto", "tintin", "asterix", "marseille",
	"lyon", "bordeaux", "toulouse", "montagne", "plage", "vacances", "fromage", "biere",
	"vin", "cafe", "camion", "moto", "velo", "chien", "chat", "cheval", "loup", "ours",
	"lapin", "poisson", "oiseau", "fleur", "rose", "jardin", "bureau", "travail",
	"ordinateur", "clavier", "souris", "telephone", "courriel", "compte", "moncompte",
	"connexion", "entrer", "ouvrir", "accueil",
	// English months and days.
	"january", "february", "march", "april", "may", "june", "july", "august", "september",
	"october", "november", "december", "tuesday", "wednesday", "thursday", "saturday",
	// Insurers, banks and this portal.
	"belair", "belairdirect", "intact", "intactinsurance", "intactassurance", "scotia",
	"scotiabank", "servus", "servuscredit", "bna", "nbc", "banquenationale", "nationalbank",
	"desjardins", "rbc", "tdbank", "bmo", "cibc", "insurance", "assurance", "assurances",
	"insured", "policy", "police", "customer", "client", "portal", "portail", "guichet",
	"myaccount", "auto", "home", "habitation", "car", "truck", "driver", "conducteur",
	"claim", "reclamation", "premium", "broker", "courtier",
}

var blocklistNames = []string{
	"james", "john", "robert", "david", "william", "richard", "joseph", "thomas", "charles",
	"christopher", "daniel", "matthew", "anthony", "mark", "donald", "steven", "paul",
	"andrew", "joshua", "kenneth", "kevin", "brian", "george", "timothy", "ronald", "edward",
	"jason", "jeffrey", "ryan", "jacob", "gary", "nicholas", "eric", "jonathan", "stephen",
	"larry", "justin", "scott", "brandon", "benjamin", "samuel", "gregory", "alexander",
	"frank", "patrick", "raymond", "jack", "dennis", "jerry", "tyler", "aaron", "jose",
	"adam", "nathan", "henry", "douglas", "zachary", "peter", "kyle", "ethan", "walter",
	"noah", "jeremy", "christian", "keith", "roger", "terry", "austin", "sean", "gerald",
	"carl", "harold", "dylan", "arthur", "lawrence", "jordan", "jesse", "bryan", "billy",
	"bruce", "gabriel", "joe", "logan", "alan", "juan", "albert", "willie", "elijah",
	"wayne", "randy", "vincent", "mason", "roy", "ralph", "bobby", "russell", "bradley",
	"philip", "eugene", "mary", "patricia", "jennifer", "linda", "elizabeth", "barbara",
	"susan", "jessica", "sarah", "karen", "lisa", "nancy", "betty", "sandra", "margaret",
	"ashley", "kimberly", "emily", "donna", "michelle", "carol", "amanda", "melissa",
	"deborah", "stephanie", "dorothy", "rebecca", "sharon", "laura", "cynthia", "amy",
	"kathleen", "angela", "shirley", "brenda", "emma", "anna", "pamela", "nicole",
	"samantha", "katherine", "christine", "helen", "debra", "rachel", "carolyn", "janet",
	"maria", "catherine", "heather", "diane", "olivia", "julie", "joyce", "victoria",
	"ruth", "virginia", "lauren", "kelly", "christina", "joan", "evelyn", "judith",
	"andrea", "hannah", "megan", "cheryl", "jacqueline", "martha", "madison", "teresa",
	"gloria", "sara", "janice", "ann", "kathryn", "abigail", "sophia", "frances", "jean",
	"alice", "judy", "isabella", "julia", "grace", "amber", "denise", "danielle", "marilyn",
	"beverly", "charlotte", "natalie", "theresa", "diana", "brittany", "doris", "kayla",
	"alexis", "lori", "marie", "alexandre", "mathieu", "maxime", "antoine", "etienne",
	"francois", "guillaume", "julien", "louis", "marc", "philippe", "pierre", "simon",
	"sebastien", "olivier", "raphael", "felix", "zachary", "tristan", "nathalie", "sophie",
	"valerie", "veronique", "genevieve", "melanie", "chantal", "sylvie", "josee", "annie",
	"caroline", "karine", "emilie", "lea", "chloe", "camille", "gabrielle", "rosalie",
	"juliette", "alice", "florence", "mathis", "thomas", "jacob", "william", "liam",
	"oliver", "lucas", "jackson", "aiden", "hunter", "owen", "connor", "caleb", "isaac",
	"luke", "evan", "ava", "mia", "amelia", "harper", "ella", "avery", "scarlett",
	"aria", "layla", "zoey", "nora", "lily", "eleanor", "hazel", "violet", "aurora",
	"savannah", "audrey", "brooklyn", "bella", "claire", "skylar", "paisley", "everly",
	"jasmine", "tiffany", "crystal", "courtney", "erin", "alyssa", "brianna", "taylor",
	"morgan", "destiny", "jenny", "katie", "chris", "mike", "dave", "steve", "tony",
	"nick", "matt", "josh", "alex", "sam", "ben", "tom", "dan", "max", "jake",
}

// blocklistWalks are used as they are and with the endings.
var blocklistWalks = []string{
	"1234567890", "0123456789", "0987654321", "9876543210", "12345678910", "123123123",
	"1234512345", "1122334455", "1112223334", "qwertyuiop", "qwertyuiop1",
	"asdfghjkl", "asdfghjkl1", "zxcvbnm123", "1q2w3e4r5t", "1q2w3e4r5t6y", "1qaz2wsx3edc",
	"q1w2e3r4t5", "a1b2c3d4e5", "abcdefghij", "abcdefghijk", "abcd1234", "abcd12345",
	"qwer1234", "qwerty12345", "qwerty123456", "asdf1234", "zxcv1234", "azertyuiop",
	"qwertzuiop", "1qazxsw2", "zaq1xsw2", "!qaz2wsx", "!qaz@wsx", "1qaz@wsx", "qazwsxedc",
	"qazwsxedcrfv", "poiuytrewq", "lkjhgfdsa", "mnbvcxz", "1a2b3c4d", "aa123456",
	"abc12345", "password1234", "pass1234", "letmein123", "welcome123", "iloveyou123",
}

var blocklistEndings = []string{
	"", "1", "12", "123", "1234", "12345", "!", "1!", "12!", "123!", "1234!", "@1", "@123",
	"#1", "01", "2023", "2024", "2025", "2026", "2024!", "2025!", "2026!",
}

// blocklistLeet spells a root the way people dodge dictionary checks.
var blocklistLeet = strings.NewReplacer("a", "@", "o", "0", "e", "3", "i", "1", "s", "$")

func generateBlocklist() []string {
	var out []string
	add := func(s string) {
		if n := len(s); n >= PasswordMinLength && n <= PasswordMaxLength {
			out = append(out, s)
		}
	}
	roots := slices.Concat(blocklistClassicRoots, blocklistLocalRoots, blocklistNames, blocklistWalks)
	for _, root := range roots {
		for _, ending := range blocklistEndings {
			add(root + ending)
		}
	}
	for _, root := range slices.Concat(blocklistClassicRoots[:40], blocklistLocalRoots[:60]) {
		leet := blocklistLeet.Replace(root)
		for _, ending := range blocklistEndings {
			add(leet + ending)
		}
		add(root + root)
	}
	for _, name := range blocklistNames {
		for year := 1970; year <= 2005; year += 5 {
			add(name + strconv.Itoa(year))
		}
	}
	for d := '0'; d <= '9'; d++ {
		for n := PasswordMinLength; n <= 16; n++ {
			add(strings.Repeat(string(d), n))
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// TestBlocklistFile checks blocklist.txt against the generator and the limits
// of the brief: at least 10,000 entries, at most 200 KB.
func TestBlocklistFile(t *testing.T) {
	want := strings.Join(generateBlocklist(), "\n") + "\n"
	if *update {
		if err := os.WriteFile("blocklist.txt", []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		blocklistText = want
	}
	if blocklistText != want {
		t.Fatal("blocklist.txt differs from generateBlocklist; run go test ./internal/rules -run TestBlocklistFile -update")
	}
	if n := len(blocklist()); n < 10_000 {
		t.Errorf("blocklist has %d entries, want at least 10000", n)
	}
	if n := len(blocklistText); n > 200*1024 {
		t.Errorf("blocklist.txt is %d bytes, want at most 200 KB", n)
	}
	for line := range strings.SplitSeq(strings.TrimSpace(blocklistText), "\n") {
		if line != lowerASCII(line) || line != NormalizePassword(line) || len(line) < PasswordMinLength {
			t.Errorf("blocklist entry %q: not lower case, normalized and at least 10 long", line)
		}
	}
}

func TestCommonPassword(t *testing.T) {
	tests := []struct {
		password string
		want     bool
	}{
		{"Password1!", true},
		{"PASSWORD1!", true},
		{"Summer2024!", true},
		{"Welcome123!", true},
		{"P@ssw0rd123", true},
		{"Montreal2025!", true},
		{"Motdepasse1!", true},
		{"Belairdirect1", true},
		{"1234567890", true},
		{"Jennifer1985", true},
		{"Tr0ub4dor&3x", false},
		{"correct horse battery staple", false},
	}
	for _, tt := range tests {
		if got := commonPassword(tt.password); got != tt.want {
			t.Errorf("commonPassword(%q) = %v, want %v", tt.password, got, tt.want)
		}
	}
}
