/*
 * langs.c - the vocabularies of --multilingual; see langs.h.
 */
#include "langs.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const char *const eng[] = {
	"the", "of", "and", "to", "in", "is", "that", "for", "it", "with", "as", "was",
	"on", "are", "be", "this", "have", "from", "by", "not", "but", "what", "all",
	"were", "when", "we", "there", "can", "which", "their", "said", "if", "will",
	"each", "about", "how", "up", "out", "them", "then", "she", "many", "some",
	"would", "other", "into", "has", "more", "two", "time", "people", "water",
	"words", "could", "first", "been", "called", "who", "now", "find", "long",
	"down", "day", "did", "get", "come", "made", "may", "part", "over", "new",
	"after", "where", "most", "through", "little", "world", "house", "again",
};
static const char *const deu[] = {
	"der", "die", "und", "in", "den", "von", "zu", "das", "mit", "sich", "des",
	"auf", "für", "ist", "im", "dem", "nicht", "ein", "eine", "als", "auch", "es",
	"an", "werden", "aus", "er", "hat", "dass", "sie", "nach", "wird", "bei",
	"einer", "um", "am", "sind", "noch", "wie", "einem", "über", "einen", "so",
	"zum", "war", "haben", "nur", "oder", "aber", "vor", "zur", "bis", "mehr",
	"durch", "man", "sein", "wurde", "sei", "unter", "zwischen", "Jahr", "Stadt",
	"Zeit", "Menschen", "gegen", "schon", "wenn", "können", "heute", "immer",
	"Wasser", "Haus", "weil", "ohne", "sehr", "großen", "Welt", "Leben", "wieder",
};
static const char *const fra[] = {
	"le", "de", "un", "être", "et", "à", "il", "avoir", "ne", "je", "son", "que",
	"se", "qui", "ce", "dans", "en", "du", "elle", "au", "pour", "pas", "plus",
	"par", "sur", "faire", "avec", "tout", "nous", "mais", "les", "des", "une",
	"est", "sont", "cette", "aussi", "leur", "bien", "où", "comme", "même",
	"après", "très", "encore", "toujours", "maison", "temps", "monde", "jour",
	"ville", "pendant", "depuis", "entre", "sous", "chez", "alors", "peut",
	"fait", "été", "deux", "années", "notre", "vous", "ils", "eux", "rien",
	"quand", "beaucoup", "personnes", "eau", "pays", "vie", "histoire", "français",
};
static const char *const spa[] = {
	"de", "la", "que", "el", "en", "y", "a", "los", "se", "del", "las", "un",
	"por", "con", "no", "una", "su", "para", "es", "al", "lo", "como", "más",
	"pero", "sus", "le", "ya", "o", "este", "sí", "porque", "esta", "entre",
	"cuando", "muy", "sin", "sobre", "también", "me", "hasta", "hay", "donde",
	"quien", "desde", "todo", "nos", "durante", "todos", "uno", "les", "ni",
	"contra", "otros", "ese", "eso", "ante", "ellos", "años", "ciudad", "tiempo",
	"vida", "mundo", "país", "historia", "agua", "casa", "personas", "después",
	"siempre", "nuevo", "gran", "parte", "trabajo", "español", "está", "fue",
};
static const char *const ita[] = {
	"di", "che", "e", "la", "il", "un", "a", "per", "in", "una", "mi", "sono",
	"ho", "ma", "lo", "ha", "le", "si", "ti", "con", "cosa", "se", "io", "come",
	"da", "ci", "no", "questo", "qui", "hai", "del", "della", "non", "sei",
	"anche", "nel", "alla", "più", "gli", "dei", "delle", "sul", "tra", "fra",
	"essere", "fatto", "stato", "molto", "quando", "dopo", "ancora", "sempre",
	"tutto", "tempo", "città", "anni", "vita", "mondo", "casa", "acqua", "paese",
	"storia", "persone", "italiano", "grande", "nuovo", "parte", "lavoro",
	"questa", "quella", "degli", "negli", "loro", "perché", "così", "allora",
};
static const char *const por[] = {
	"de", "a", "o", "que", "e", "do", "da", "em", "um", "para", "é", "com",
	"não", "uma", "os", "no", "se", "na", "por", "mais", "as", "dos", "como",
	"mas", "foi", "ao", "ele", "das", "tem", "à", "seu", "sua", "ou", "ser",
	"quando", "muito", "há", "nos", "já", "está", "eu", "também", "só", "pelo",
	"pela", "até", "isso", "ela", "entre", "era", "depois", "sem", "mesmo",
	"aos", "ter", "seus", "quem", "nas", "me", "esse", "eles", "estão", "você",
	"anos", "cidade", "tempo", "vida", "mundo", "país", "história", "água",
	"casa", "pessoas", "português", "então", "ainda", "sempre", "trabalho",
};
static const char *const nld[] = {
	"de", "van", "een", "het", "en", "in", "is", "dat", "op", "te", "zijn", "met",
	"voor", "niet", "aan", "er", "die", "om", "ook", "als", "dan", "maar", "bij",
	"of", "uit", "nog", "worden", "door", "naar", "heeft", "hij", "ze", "wordt",
	"deze", "wel", "was", "kan", "tot", "jaar", "zo", "meer", "geen", "moet",
	"al", "hebben", "werd", "haar", "over", "onder", "tussen", "tegen", "zonder",
	"altijd", "nieuwe", "grote", "stad", "tijd", "mensen", "wereld", "huis",
	"water", "leven", "land", "geschiedenis", "Nederlands", "twee", "eerste",
	"veel", "wat", "wij", "jullie", "hun", "waar", "omdat", "alleen", "nu",
};
static const char *const swe[] = {
	"och", "i", "att", "det", "som", "en", "på", "är", "av", "för", "med", "till",
	"den", "har", "de", "inte", "om", "ett", "han", "men", "var", "jag", "sig",
	"från", "vi", "så", "kan", "man", "när", "år", "säger", "hon", "under",
	"också", "efter", "eller", "nu", "sin", "där", "vid", "mot", "ska", "skulle",
	"kommer", "ut", "får", "finns", "vara", "hade", "alla", "andra", "mycket",
	"än", "här", "då", "sedan", "över", "bara", "blir", "upp", "även", "vad",
	"staden", "tiden", "världen", "huset", "vatten", "livet", "landet",
	"historia", "svenska", "människor", "alltid", "mellan", "utan", "två",
};
static const char *const pol[] = {
	"i", "w", "nie", "na", "się", "z", "do", "to", "że", "jest", "o", "jak",
	"ale", "co", "tak", "za", "od", "po", "już", "tylko", "przez", "jego", "jej",
	"są", "był", "była", "było", "może", "być", "ich", "tym", "ten", "ta",
	"także", "oraz", "lub", "gdy", "jednak", "bardzo", "kiedy", "który",
	"która", "które", "przed", "między", "podczas", "bez", "nad", "pod", "dla",
	"roku", "lat", "miasto", "czas", "życie", "świat", "dom", "woda", "kraj",
	"historia", "ludzie", "polski", "zawsze", "nowy", "duży", "część", "praca",
	"dwa", "pierwszy", "wiele", "gdzie", "teraz", "jeszcze", "tutaj", "wszystko",
};
static const char *const fin[] = {
	"ja", "on", "ei", "se", "että", "hän", "oli", "ole", "kuin", "mutta",
	"myös", "niin", "jo", "kun", "tai", "sen", "vain", "nyt", "joka", "mitä",
	"ovat", "olla", "hänen", "siitä", "sitä", "tämä", "kanssa", "jälkeen",
	"ennen", "aina", "vielä", "paljon", "koska", "kaikki", "mukaan", "sekä",
	"jossa", "vuonna", "vuotta", "kaupunki", "aika", "elämä", "maailma", "talo",
	"vesi", "maa", "historia", "ihmiset", "suomen", "kieli", "uusi", "suuri",
	"osa", "työ", "kaksi", "ensimmäinen", "monta", "missä", "tässä", "siellä",
	"meidän", "teidän", "heidän", "minä", "sinä", "olen", "olet", "olemme",
	"kaupungin", "ihmisten", "aikana", "välillä", "ilman", "kautta", "tänään",
};
static const char *const tur[] = {
	"ve", "bir", "bu", "da", "de", "için", "ile", "olarak", "çok", "daha", "ne",
	"gibi", "ama", "olan", "en", "sonra", "kadar", "her", "ki", "o", "değil",
	"var", "yok", "ben", "sen", "biz", "onlar", "şey", "zaman", "yıl", "şehir",
	"hayat", "dünya", "ev", "su", "ülke", "tarih", "insanlar", "türkçe", "yeni",
	"büyük", "parça", "iş", "iki", "ilk", "birçok", "nerede", "şimdi", "burada",
	"orada", "hep", "arasında", "olmadan", "tarafından", "önce", "bugün",
	"yapmak", "gelmek", "gitmek", "bilmek", "görmek", "istemek", "vermek",
	"almak", "demek", "olmak", "bunun", "onun", "bütün", "kendi", "diğer",
	"yüzyıl", "insan", "güzel", "küçük", "uzun", "eski", "kısa", "yüksek",
};
static const char *const ces[] = {
	"a", "se", "v", "na", "je", "že", "to", "s", "z", "o", "do", "i", "jako",
	"ale", "by", "k", "za", "po", "jsou", "už", "jeho", "jak", "tak", "který",
	"která", "které", "také", "bylo", "byl", "byla", "jsem", "není", "pro",
	"při", "od", "mezi", "podle", "před", "bez", "nad", "pod", "když", "jen",
	"velmi", "ještě", "vždy", "kde", "teď", "tady", "všechno", "roku", "let",
	"město", "čas", "život", "svět", "dům", "voda", "země", "historie", "lidé",
	"čeština", "nový", "velký", "část", "práce", "dva", "první", "mnoho",
	"jejich", "tento", "tato", "toto", "můžeme", "budou", "řekl", "přišel",
};

const struct web_lang web_langs[WEB_NLANGS] = {
	{ "eng", eng, N(eng) }, { "deu", deu, N(deu) }, { "fra", fra, N(fra) },
	{ "spa", spa, N(spa) }, { "ita", ita, N(ita) }, { "por", por, N(por) },
	{ "nld", nld, N(nld) }, { "swe", swe, N(swe) }, { "pol", pol, N(pol) },
	{ "fin", fin, N(fin) }, { "tur", tur, N(tur) }, { "ces", ces, N(ces) },
};
