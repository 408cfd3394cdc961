// Shared by the layout tests (struct_layouts.test.ts, engine/<model>/*_layouts.test.ts): the C
// compiler's offsetof/sizeof as wasm-core/build/native/struct_layout prints them, and records
// written at those offsets for a decoder to read back.
import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'

export type Layout = Record<string, { size: number; fields: Record<string, [number, number]> }>
const program = fileURLToPath(new URL('../../../wasm-core/build/native/struct_layout', import.meta.url))
export const layout: Layout = JSON.parse(execFileSync(program, { encoding: 'utf8' }))

export const fieldOf = (struct: string, member: string): [number, number] => {
  const f = layout[struct]?.fields[member]
  if (!f) throw new Error(`${struct}.${member}: not printed by tools/layout/struct_layout.c`)
  return f
}

/** Writes `value` into a field of `size` bytes at `at` (little-endian; text NUL-padded). */
export function put(buf: ArrayBuffer, at: number, size: number, value: number | bigint | string) {
  const dv = new DataView(buf)
  if (typeof value === 'string') {
    const field = new Uint8Array(buf, at, size)
    field.fill(0)
    field.set(new TextEncoder().encode(value).subarray(0, size - 1))
  } else if (size === 8) dv.setBigUint64(at, BigInt(value), true)
  else if (size === 4) dv.setInt32(at, Number(value), true)
  else if (size === 2) dv.setUint16(at, Number(value), true)
  else if (size === 1) dv.setUint8(at, Number(value))
  else throw new Error(`no scalar of ${size} bytes`)
}

/**
 * A record of `struct` with `values` (C member -> value) at the compiler's offsets, every other
 * top-level scalar field (not a union, not named) set to a distinct non-zero filler, and all
 * remaining bytes 0xff: a decoder that reads too wide or at the wrong place gets garbage.
 */
export function record(struct: string, values: Record<string, number | bigint | string>, count = 1) {
  const { size, fields } = layout[struct]
  const buf = new ArrayBuffer(size * count + 8)
  new Uint8Array(buf).fill(0xff)
  let filler = 0x51
  for (const [name, [offset, width]] of Object.entries(fields)) {
    if (name in values || name.includes('.') || name === 'u' || ![1, 2, 4, 8].includes(width)) continue
    put(buf, offset, width, filler++)
  }
  for (const [member, value] of Object.entries(values)) {
    const [offset, width] = fieldOf(struct, member)
    put(buf, offset, width, value)
  }
  return buf
}

