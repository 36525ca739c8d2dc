// The language Tesseract reads a page with, chosen from evidence on that page, never per document.
// A page whose text layer has letters says which scripts it is written in (Unicode scripts of its
// characters: Arabic letters → `ara+eng`); a page without one that the default language reads as
// low-confidence garbage is given to Tesseract's script detection (OSD, `--psm 0`), which names
// its script ("Script: Arabic"). Only languages whose traineddata is installed are used (`tesseract
// --list-langs`, once per process); a script whose language is missing is read with the default
// and reported (a warning on the job), never a failure. Pages in Latin script never get here with
// anything but the default: their reading, and its cost, are what they were.
import { runTool } from '../render/run-tool';

/** The language a page is read with when nothing on it calls for another (and the API names none). */
export const DEFAULT_OCR_LANG = 'eng';

interface ScriptLanguage {
  /** Unicode script (the text layer's characters); also OSD's name for it unless `osd` says otherwise. */
  script: string;
  /** OSD's names for the script. */
  osd: string[];
  /** Tesseract's language for it (what Debian's tesseract-ocr-<lang> installs). */
  lang: string;
}

/**
 * Scripts Tesseract reads with a language of its own. Installed by scripts/setup.sh and the image:
 * Arabic and Hebrew (right-to-left, which the layout already puts in logical order); the others are
 * recognised so that a page in them says which language it lacks rather than being read as Latin
 * without a word.
 */
const SCRIPT_LANGUAGES: ScriptLanguage[] = [
  { script: 'Arabic', osd: ['Arabic'], lang: 'ara' },
  { script: 'Hebrew', osd: ['Hebrew'], lang: 'heb' },
  { script: 'Cyrillic', osd: ['Cyrillic'], lang: 'rus' },
  { script: 'Greek', osd: ['Greek'], lang: 'ell' },
  { script: 'Han', osd: ['Han'], lang: 'chi_sim' },
  { script: 'Hiragana', osd: ['Japanese', 'Hiragana', 'Katakana'], lang: 'jpn' },
  { script: 'Katakana', osd: [], lang: 'jpn' },
  { script: 'Hangul', osd: ['Hangul', 'Korean'], lang: 'kor' },
  { script: 'Devanagari', osd: ['Devanagari'], lang: 'hin' },
  { script: 'Thai', osd: ['Thai'], lang: 'tha' },
];
const SCRIPT_TESTS = SCRIPT_LANGUAGES.map((s) => ({ ...s, re: new RegExp(`^\\p{Script=${s.script}}$`, 'u') }));
const LATIN = /^\p{Script=Latin}$/u;
const LETTER = /\p{L}/u;

/** Letters of a script a page must have to be read in its language: this many, and this share of its letters. */
const MIN_SCRIPT_LETTERS = 20;
const MIN_SCRIPT_SHARE = 0.1;
/** Latin letters that keep the default language beside another (names, code, numbers' units). */
const MIN_LATIN_LETTERS = 3;
/**
 * OSD's script confidence a page's script must reach. Measured: an Arabic page 50, an English one
 * 9.7; Latin receipts read poorly are named "Cyrillic" at 0.25-2.35.
 */
export const MIN_OSD_SCRIPT_CONFIDENCE = 5;
/**
 * Mean confidence (over letters and digits) under which a reading with the default language may be
 * of another script: the same bound under which recognise.ts checks a page's orientation with OSD.
 */
export const DOUBTFUL_READING_CONF = 45;

export interface OcrLanguageChoice {
  /** Tesseract's `-l` for the page. */
  lang: string;
  /** What chose it: the page's text layer, or Tesseract's script detection on its image. */
  from: 'text_layer' | 'script_detection';
  /** The evidence: letters per script on the text layer, or OSD's script and its confidence. */
  scripts: Record<string, number>;
  /** Languages the page's scripts call for whose traineddata is not installed. */
  missing?: string[];
}

/** Characters of the Latin script's letters and of scripts with no letters (Basic Latin to Latin Extended-B). */
const LATIN_RANGE_ONLY = /^[\u0000-\u024F]*$/;
const LATIN_LETTERS = /[A-Za-z\u00C0-\u00D6\u00D8-\u00F6\u00F8-\u024F]/g;

/** Letters per Unicode script (Latin, the scripts of SCRIPT_LANGUAGES, and 'Other'). */
export function scriptLetters(texts: Iterable<string>): Record<string, number> {
  const out: Record<string, number> = {};
  const add = (s: string, n: number) => {
    if (n) out[s] = (out[s] ?? 0) + n;
  };
  for (const t of texts) {
    // Most runs of most pages: counted with one pattern, not character by character.
    if (LATIN_RANGE_ONLY.test(t)) {
      add('Latin', t.match(LATIN_LETTERS)?.length ?? 0);
      continue;
    }
    for (const ch of t) {
      if (!LETTER.test(ch)) continue;
      add(LATIN.test(ch) ? 'Latin' : (SCRIPT_TESTS.find((x) => x.re.test(ch))?.script ?? 'Other'), 1);
    }
  }
  return out;
}

/**
 * The language a text layer's letters call for, or undefined when they are Latin (or too few to
 * tell: the reading decides then). Languages by letter count, the default after them when the
 * page has Latin words too; `installed` filters them (missing ones are named).
 */
export function languageFromLetters(
  letters: Record<string, number>,
  installed: ReadonlySet<string>,
): OcrLanguageChoice | undefined {
  const total = Object.values(letters).reduce((a, b) => a + b, 0);
  const wanted: string[] = [];
  for (const [script, n] of Object.entries(letters).sort((a, b) => b[1] - a[1])) {
    const lang = SCRIPT_LANGUAGES.find((s) => s.script === script)?.lang;
    if (!lang || n < MIN_SCRIPT_LETTERS || n < MIN_SCRIPT_SHARE * total || wanted.includes(lang)) continue;
    wanted.push(lang);
  }
  if (!wanted.length) return undefined;
  return resolve(wanted, (letters.Latin ?? 0) >= MIN_LATIN_LETTERS, installed, 'text_layer', letters);
}

/** The language OSD's script calls for (undefined: Latin, unknown, or not sure enough). */
export function languageFromOsd(
  osd: { script: string; scriptConfidence: number },
  installed: ReadonlySet<string>,
): OcrLanguageChoice | undefined {
  if (osd.scriptConfidence < MIN_OSD_SCRIPT_CONFIDENCE) return undefined;
  const lang = SCRIPT_LANGUAGES.find((s) => s.osd.includes(osd.script))?.lang;
  if (!lang) return undefined;
  // The default stays beside it: pages in other scripts carry Latin names, code and units.
  return resolve([lang], true, installed, 'script_detection', { [osd.script]: osd.scriptConfidence });
}

function resolve(
  wanted: string[],
  withDefault: boolean,
  installed: ReadonlySet<string>,
  from: OcrLanguageChoice['from'],
  scripts: Record<string, number>,
): OcrLanguageChoice {
  const have = wanted.filter((l) => installed.has(l));
  const missing = wanted.filter((l) => !installed.has(l));
  const langs = have.length ? [...have, ...(withDefault ? [DEFAULT_OCR_LANG] : [])] : [DEFAULT_OCR_LANG];
  return { lang: langs.join('+'), from, scripts, ...(missing.length ? { missing } : {}) };
}

/** A choice that changes how the page is read (a missing language alone does not). */
export const readsOtherwise = (c: OcrLanguageChoice | undefined, lang: string): c is OcrLanguageChoice =>
  !!c && c.lang !== lang;

/** The job warning for a page whose script's language is not installed. */
export function missingLanguageWarning(
  pageNumber: number,
  c: OcrLanguageChoice,
): { code: string; message: string } | undefined {
  if (!c.missing?.length) return undefined;
  const scripts = Object.keys(c.scripts).filter((s) => s !== 'Latin' && s !== 'Other');
  return {
    code: 'ocr_language_missing',
    message: `Page ${pageNumber}: its text is in ${scripts.join(', ') || 'another script'}, but the OCR language ${c.missing.join(', ')} is not installed; read with ${c.lang}, so its text is likely misread.`,
  };
}

/**
 * `choose` on the evidence with the installed languages, which are asked for only when the evidence
 * calls for a language at all (a Latin page never makes Tesseract list them).
 */
export async function chooseInstalled<E>(
  evidence: E,
  choose: (e: E, installed: ReadonlySet<string>) => OcrLanguageChoice | undefined,
): Promise<OcrLanguageChoice | undefined> {
  if (!choose(evidence, new Set())) return undefined;
  return choose(evidence, await installedOcrLanguages());
}

let installedOnce: Promise<Set<string>> | undefined;

/**
 * The languages Tesseract has traineddata for (`tesseract --list-langs`), asked once per process.
 * Empty when it cannot be asked: every page is then read with the default, as before.
 */
export function installedOcrLanguages(): Promise<Set<string>> {
  installedOnce ??= runTool('tesseract', ['--list-langs'], { timeoutMs: 10_000 }).then(
    ({ stdout, stderr }) => parseListLangs(`${stdout}\n${stderr}`),
    () => new Set<string>(),
  );
  return installedOnce;
}

/** `tesseract --list-langs` output → language codes (the lines after its header). */
export function parseListLangs(out: string): Set<string> {
  const lines = out.split('\n').map((l) => l.trim());
  const at = lines.findIndex((l) => /^List of available languages/i.test(l));
  return new Set(lines.slice(at + 1).filter((l) => /^[A-Za-z_]+$/.test(l)));
}

/** The job event of a page read in (or lacking) a language its script called for. */
export function ocrLanguageEvent(
  pageNumber: number,
  c: OcrLanguageChoice,
): { message: string; payload: Record<string, unknown> } {
  const evidence = Object.entries(c.scripts)
    .map(([s, n]) => (c.from === 'text_layer' ? `${n} ${s} letters` : `${s}, confidence ${n.toFixed(1)}`))
    .join(', ');
  const source = c.from === 'text_layer' ? 'its text layer' : 'script detection';
  const message = c.missing?.length
    ? `Page ${pageNumber}: ${source} (${evidence}) calls for OCR language ${c.missing.join(', ')}, which is not installed; read with ${c.lang}.`
    : `Page ${pageNumber}: OCR read in ${c.lang}, chosen from ${source} (${evidence}).`;
  return { message, payload: { page_number: pageNumber, ...c } };
}
