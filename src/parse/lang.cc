/*
 * lang.cc - CLD2 behind lang.h's C interface; see lang.h.
 */
#include "parse/lang.h"

#include <cstdio>   /* before CLD2's header, which uses FILE */
#include <cstdlib>
#include <cstring>
#include <cld2/public/compact_lang_det.h>
#include <cld2/public/encodings.h>

namespace {

struct iso {
	const char *cld2, *iso3;
};

/* CLD2's two-letter (and regional) codes and their ISO 639-3 codes, sorted
 * by CLD2's code (bsearch). Three-letter CLD2 codes are ISO 639-3 already. */
const iso iso_table[] = {
	{ "aa", "aar" }, { "ab", "abk" }, { "af", "afr" }, { "ak", "aka" }, { "am", "amh" },
	{ "ar", "ara" }, { "as", "asm" }, { "ay", "aym" }, { "az", "aze" }, { "ba", "bak" },
	{ "be", "bel" }, { "bg", "bul" }, { "bh", "bih" }, { "bi", "bis" }, { "bn", "ben" },
	{ "bo", "bod" }, { "br", "bre" }, { "bs", "bos" }, { "ca", "cat" }, { "co", "cos" },
	{ "cs", "ces" }, { "cy", "cym" }, { "da", "dan" }, { "de", "deu" }, { "dv", "div" },
	{ "dz", "dzo" }, { "ee", "ewe" }, { "el", "ell" }, { "en", "eng" }, { "eo", "epo" },
	{ "es", "spa" }, { "et", "est" }, { "eu", "eus" }, { "fa", "fas" }, { "fi", "fin" },
	{ "fj", "fij" }, { "fo", "fao" }, { "fr", "fra" }, { "fy", "fry" }, { "ga", "gle" },
	{ "gd", "gla" }, { "gl", "glg" }, { "gn", "grn" }, { "gu", "guj" }, { "gv", "glv" },
	{ "ha", "hau" }, { "hi", "hin" }, { "hr", "hrv" }, { "ht", "hat" }, { "hu", "hun" },
	{ "hy", "hye" }, { "ia", "ina" }, { "id", "ind" }, { "ie", "ile" }, { "ig", "ibo" },
	{ "ik", "ipk" }, { "is", "isl" }, { "it", "ita" }, { "iu", "iku" }, { "iw", "heb" },
	{ "ja", "jpn" }, { "jw", "jav" }, { "ka", "kat" }, { "kk", "kaz" }, { "kl", "kal" },
	{ "km", "khm" }, { "kn", "kan" }, { "ko", "kor" }, { "ks", "kas" }, { "ku", "kur" },
	{ "ky", "kir" }, { "la", "lat" }, { "lb", "ltz" }, { "lg", "lug" }, { "ln", "lin" },
	{ "lo", "lao" }, { "lt", "lit" }, { "lv", "lav" }, { "mg", "mlg" }, { "mi", "mri" },
	{ "mk", "mkd" }, { "ml", "mal" }, { "mn", "mon" }, { "mr", "mar" }, { "ms", "msa" },
	{ "mt", "mlt" }, { "my", "mya" }, { "na", "nau" }, { "ne", "nep" }, { "nl", "nld" },
	{ "nn", "nno" }, { "no", "nor" }, { "nr", "nbl" }, { "ny", "nya" }, { "oc", "oci" },
	{ "om", "orm" }, { "or", "ori" }, { "os", "oss" }, { "pa", "pan" }, { "pl", "pol" },
	{ "ps", "pus" }, { "pt", "por" }, { "qu", "que" }, { "rm", "roh" }, { "rn", "run" },
	{ "ro", "ron" }, { "ru", "rus" }, { "rw", "kin" }, { "sa", "san" }, { "sd", "snd" },
	{ "sg", "sag" }, { "si", "sin" }, { "sk", "slk" }, { "sl", "slv" }, { "sm", "smo" },
	{ "sn", "sna" }, { "so", "som" }, { "sq", "sqi" }, { "sr", "srp" }, { "sr-ME", "srp" },
	{ "ss", "ssw" }, { "st", "sot" }, { "su", "sun" }, { "sv", "swe" }, { "sw", "swa" },
	{ "ta", "tam" }, { "te", "tel" }, { "tg", "tgk" }, { "th", "tha" }, { "ti", "tir" },
	{ "tk", "tuk" }, { "tl", "tgl" }, { "tn", "tsn" }, { "to", "ton" }, { "tr", "tur" },
	{ "ts", "tso" }, { "tt", "tat" }, { "tw", "twi" }, { "ug", "uig" }, { "uk", "ukr" },
	{ "ur", "urd" }, { "uz", "uzb" }, { "ve", "ven" }, { "vi", "vie" }, { "vo", "vol" },
	{ "wo", "wol" }, { "xh", "xho" }, { "yi", "yid" }, { "yo", "yor" }, { "za", "zha" },
	{ "zh", "zho" }, { "zh-Hant", "zho" }, { "zu", "zul" },
};

int iso_cmp(const void *a, const void *b)
{
	return strcmp(static_cast<const iso *>(a)->cld2, static_cast<const iso *>(b)->cld2);
}

/* One run of CLD2 over buf; returns the valid UTF-8 prefix's length. */
int detect(const char *buf, int len, CLD2::Language *lang3, int *pct3, bool *reliable)
{
	CLD2::CLDHints hints = { NULL, NULL, CLD2::UNKNOWN_ENCODING, CLD2::UNKNOWN_LANGUAGE };
	double score3[3];
	int text_bytes = 0, valid = len;

	CLD2::ExtDetectLanguageSummaryCheckUTF8(buf, len, true, &hints, 0, lang3, pct3, score3,
						NULL, &text_bytes, reliable, &valid);
	return valid;
}

}  // namespace

namespace {

/* Text past this is sampled: CLD2 needs a few hundred bytes to be sure, and
 * reading all of a long page was a sixth of a crawl's CPU. On 708 man
 * pages in 17 languages (Debian's translations), 1.5 KB named the
 * directory's language for 570, 3 KB for 571, and the two agreed on 687
 * (the rest mix English in); CLD2 was still 15 % of a crawl's CPU on small
 * pages at 3 KB (docs/PERFORMANCE.md). */
const size_t SAMPLE_BYTES = 1536;

/* The first byte of a character at or after i (UTF-8). */
size_t char_start(const char *t, size_t n, size_t i)
{
	while (i < n && (static_cast<unsigned char>(t[i]) & 0xC0) == 0x80)
		i++;
	return i;
}

/* A long text's start, middle and end, a third of SAMPLE_BYTES each, cut
 * at character boundaries and joined by line ends; a short one whole. */
size_t sample(const char *t, size_t n, char *out)
{
	const size_t part = SAMPLE_BYTES / 3;
	const size_t at[3] = { 0, n / 2, n - part };
	size_t o = 0, k;

	if (n <= SAMPLE_BYTES) {
		memcpy(out, t, n);
		return n;
	}
	for (k = 0; k < 3; k++) {
		size_t a = char_start(t, n, at[k]), b = char_start(t, n, at[k] + part - 4);

		if (b > n)
			b = n;
		if (a < b) {
			memcpy(out + o, t + a, b - a);
			o += b - a;
			out[o++] = '\n';
		}
	}
	return o;
}

}  // namespace

extern "C" const char *lang_iso3(const char *code)
{
	iso key = { code, NULL };
	const iso *hit;
	size_t n = strlen(code), i;

	hit = static_cast<const iso *>(bsearch(&key, iso_table, sizeof(iso_table) /
					       sizeof(iso_table[0]), sizeof(iso_table[0]),
					       iso_cmp));
	if (hit)
		return hit->iso3;
	if (n != 3 || !strcmp(code, "xxx"))
		return NULL;
	for (i = 0; i < n; i++)
		if (code[i] < 'a' || code[i] > 'z')
			return NULL;
	return code;
}

extern "C" void lang_detect(const char *text, size_t len, struct lang_result *out)
{
	CLD2::Language lang3[3] = { CLD2::UNKNOWN_LANGUAGE, CLD2::UNKNOWN_LANGUAGE,
				    CLD2::UNKNOWN_LANGUAGE };
	int pct3[3] = { 0, 0, 0 }, n;
	bool reliable = false;
	int valid, i;
	char buf[SAMPLE_BYTES + 8];

	memset(out, 0, sizeof(*out));
	n = static_cast<int>(sample(text, len, buf));
	valid = detect(buf, n, lang3, pct3, &reliable);
	/* Invalid UTF-8 makes CLD2 give up: the text before it is judged. */
	if (valid < n && valid > 0)
		detect(buf, valid, lang3, pct3, &reliable);
	for (i = 0; i < 3; i++) {
		const char *iso3;

		if (lang3[i] == CLD2::UNKNOWN_LANGUAGE || pct3[i] <= 0)
			continue;
		if ((iso3 = lang_iso3(CLD2::LanguageCode(lang3[i]))) == NULL)
			continue;
		snprintf(out->code[out->n], LANG_CODE_MAX, "%s", iso3);
		out->percent[out->n] = static_cast<uint8_t>(pct3[i] > 100 ? 100 : pct3[i]);
		out->n++;
	}
	out->reliable = reliable && out->n > 0;
}
