// Page styles stay on their page (issue 13). A page's own stylesheet
// (src/pages/*.css) nests every rule under its page's root class, the class
// App.tsx puts on the app's root (".app.page-traces"), so a class name such as
// "compare" on one page cannot pick up another page's layout. The shared
// stylesheets (index.css, views/**/*.css) never style a class that a page
// sheet owns: a global ".compare" (written for the trace compare view) once
// matched the mm_cid lesson's <main class="lesson-main compare"> and drew its
// pictures at zero height.
import { readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { LESSON_PAGES, PAGE_PATHS } from '../core/shared/route'

const src = fileURLToPath(new URL('..', import.meta.url))

interface Rule {
  /** Selector preludes from the outermost block in: ['.page-traces', '& .compare']. */
  path: string[]
  line: number
}

/** Every block of a stylesheet with the preludes that enclose it (at-rules included). */
export function cssRules(text: string): Rule[] {
  const masked = text.replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, ' '))
  const rules: Rule[] = []
  const stack: string[] = []
  let start = 0
  for (let i = 0; i < masked.length; i++) {
    const ch = masked[i]
    if (ch === '{') {
      const prelude = masked.slice(start, i).replace(/\s+/g, ' ').trim()
      stack.push(prelude)
      rules.push({ path: [...stack], line: masked.slice(0, i).split('\n').length })
      start = i + 1
    } else if (ch === '}') {
      stack.pop()
      start = i + 1
    } else if (ch === ';') {
      start = i + 1
    }
  }
  return rules
}

/** The classes in a selector's first compound: ".swatch.tick span" -> swatch, tick. */
function firstCompoundClasses(selector: string): string[] {
  const first = selector.replace(/^&\s*/, '').split(/[\s>+~]/)[0]
  return [...first.matchAll(/\.([\w-]+)/g)].map((m) => m[1])
}

function cssFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? cssFiles(join(dir, e.name)) : e.name.endsWith('.css') ? [join(dir, e.name)] : [])
}

const pageNames = new Set<string>([...Object.keys(PAGE_PATHS), ...LESSON_PAGES])
const pageSheets = cssFiles(join(src, 'pages'))
const sharedSheets = [join(src, 'index.css'), ...cssFiles(join(src, 'views'))]

describe('page stylesheets', () => {
  it('there are page sheets, and the checker reads nesting', () => {
    expect(pageSheets.map((f) => f.slice(src.length))).toEqual(expect.arrayContaining(['pages/traces.css', 'pages/lesson_page.css']))
    const rules = cssRules('.page-a {\n  & .x { color: red; }\n  @media (max-width: 9px) { & .y { color: blue; } }\n}\n.z { margin: 0 }')
    expect(rules.map((r) => r.path)).toEqual([['.page-a'], ['.page-a', '& .x'], ['.page-a', '@media (max-width: 9px)'],
      ['.page-a', '@media (max-width: 9px)', '& .y'], ['.z']])
  })

  for (const file of pageSheets) {
    it(`${file.slice(src.length)}: every rule sits inside a page's root class`, () => {
      const bad: string[] = []
      for (const r of cssRules(readFileSync(file, 'utf8'))) {
        const root = /^\.page-([\w-]+)$/.exec(r.path[0])
        if (!root || !pageNames.has(root[1])) bad.push(`line ${r.line}: "${r.path[0]}" is not a page's root class (.page-<page>)`)
        const inner = r.path.slice(1).filter((p) => !p.startsWith('@'))
        for (const sel of inner.flatMap((p) => p.split(','))) {
          if (!sel.trim().startsWith('&')) bad.push(`line ${r.line}: "${sel.trim()}" is not nested with "&"`)
        }
      }
      expect(bad).toEqual([])
    })
  }

  it('no shared stylesheet styles a class a page sheet owns', () => {
    const owned = new Map<string, string>()
    for (const file of pageSheets) {
      for (const r of cssRules(readFileSync(file, 'utf8'))) {
        const sel = r.path.slice(1).filter((p) => !p.startsWith('@')).at(0)
        if (sel) for (const part of sel.split(',')) for (const c of firstCompoundClasses(part.trim())) owned.set(c, file.slice(src.length))
      }
    }
    // Shared widgets a page may refine under its own root (the swatch of a legend).
    for (const shared of ['swatch']) owned.delete(shared)
    expect(owned.get('compare')).toBe('pages/traces.css')
    expect(owned.get('lesson-main')).toBe('pages/lesson_page.css')
    const reached: string[] = []
    for (const file of sharedSheets) {
      for (const r of cssRules(readFileSync(file, 'utf8'))) {
        for (const sel of r.path.filter((p) => !p.startsWith('@')).flatMap((p) => p.split(','))) {
          for (const m of sel.matchAll(/\.([\w-]+)/g)) {
            if (owned.has(m[1])) reached.push(`${file.slice(src.length)}:${r.line}: "${sel.trim()}" styles .${m[1]} (owned by ${owned.get(m[1])})`)
            if (m[1].startsWith('page-') && pageNames.has(m[1].slice(5))) reached.push(`${file.slice(src.length)}:${r.line}: "${sel.trim()}" belongs in pages/`)
          }
        }
      }
    }
    expect(reached).toEqual([])
  })
})
