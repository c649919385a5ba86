/**
 * Letters the standard PDF fonts lack, in Latin letters a reader of the paper can still use
 * (courier 4.6, Business API 4.1: names and addresses print legibly): Latin letters with a stroke
 * (which have no decomposition: `ł` is no `l` with a mark), and the Cyrillic and Greek alphabets,
 * transliterated as machine-readable travel documents do (ICAO 9303; ELOT 743 for Greek). Pure.
 */

/** Latin letters with a stroke or a bar, and the dotless i: their plain letters. */
const STROKED: Readonly<Record<string, string>> = {
  "ł": "l",
  "Ł": "L",
  "đ": "d",
  "Đ": "D",
  "ħ": "h",
  "Ħ": "H",
  "ı": "i",
  "ŧ": "t",
  "Ŧ": "T",
  "ŀ": "l",
  "Ŀ": "L",
  "ƀ": "b",
  "Ɓ": "B",
  "ǥ": "g",
  "Ǥ": "G",
  "ɨ": "i",
  "Ɨ": "I",
};

/** Lower-case Cyrillic, Russian, Ukrainian, Belarusian, Serbian and Macedonian (ICAO 9303). */
const CYRILLIC =
  "а a б b в v г g д d е e ё e ж zh з z и i й i к k л l м m н n о o п p р r с s т t у u ф f " +
  "х kh ц ts ч ch ш sh щ shch ъ ie ы y ь - э e ю iu я ia є ie і i ї i ґ g ў u ђ d ј j љ lj " +
  "њ nj ћ c џ dz ѓ g ќ k ѕ dz";

/** Lower-case Greek, accents already taken off (ELOT 743). */
const GREEK = "α a β v γ g δ d ε e ζ z η i θ th ι i κ k λ l μ m ν n ξ x ο o π p ρ r σ s ς s " +
  "τ t υ y φ f χ ch ψ ps ω o";

/** Each lower-case letter and its Latin, with its capital as a capital (`Ж` is `Zh`). */
function table(pairs: string): Map<string, string> {
  const out = new Map<string, string>();
  const words = pairs.split(" ");
  for (let i = 0; i + 1 < words.length; i += 2) {
    const [letter, latin] = [words[i]!, words[i + 1] === "-" ? "" : words[i + 1]!];
    out.set(letter, latin);
    const capital = letter.toUpperCase();
    if (capital !== letter) out.set(capital, latin.charAt(0).toUpperCase() + latin.slice(1));
  }
  return out;
}

const LATIN = new Map<string, string>([
  ...Object.entries(STROKED),
  ...table(CYRILLIC),
  ...table(GREEK),
]);

/** The Latin of one letter without its marks, or null when there is none here. */
export function latinOf(letter: string): string | null {
  return LATIN.get(letter) ?? null;
}
