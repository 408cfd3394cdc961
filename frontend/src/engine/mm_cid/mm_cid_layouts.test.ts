// mm_cid's record and model-view layouts (mm_cid_records.ts) against the C compiler's
// offsetof/sizeof (see ../struct_layouts.test.ts for the method).
import { describe, expect, it } from 'vitest'
import { fieldOf, layout, record } from '../layout_test_support'
import { viewsOf } from '../sim_records'
import {
  MM_CID_AREA_BYTES, MM_CID_LESSON_BYTES, MM_CID_LOG_VIEW_BYTES, MM_CID_MM_BYTES, MM_CID_PCPU_BYTES,
  MM_CID_RECORD_BYTES, MM_CID_VIEW_REQUEST_BYTES, decodeMmCidLogView, writeMmCidViewRequest,
} from './mm_cid_records'

describe('mm_cid record sizes against sizeof', () => {
  it('mm_cid_records.ts sizes', () => {
    expect({ MM_CID_MM_BYTES, MM_CID_PCPU_BYTES, MM_CID_RECORD_BYTES, MM_CID_AREA_BYTES, MM_CID_LESSON_BYTES }).toEqual({
      MM_CID_MM_BYTES: layout.ks_mm_cid_mm.size, MM_CID_PCPU_BYTES: layout.ks_mm_cid_pcpu.size,
      MM_CID_RECORD_BYTES: layout.ks_mm_cid_record.size, MM_CID_AREA_BYTES: layout.ks_mm_cid_area.size,
      MM_CID_LESSON_BYTES: layout.ks_mm_cid_lesson.size,
    })
  })
})

describe('the mm_cid model view request and log view (ks_sim_model_view_get) against offsetof', () => {
  it('writes ks_mm_cid_view_request at the compiler offsets', () => {
    expect(MM_CID_VIEW_REQUEST_BYTES).toBe(layout.ks_mm_cid_view_request.size)
    const buf = new ArrayBuffer(MM_CID_VIEW_REQUEST_BYTES + 8)
    new Uint8Array(buf).fill(0xff)
    writeMmCidViewRequest(viewsOf(buf), 8, 3, 1042, 1)
    const dv = new DataView(buf)
    const read = (m: string) => dv.getInt32(8 + fieldOf('ks_mm_cid_view_request', m)[0], true)
    expect([read('view'), read('tgid'), read('arg'), read('reserved')]).toEqual([3, 1042, 1, 0])
  })
  it('decodes ks_mm_cid_log_view at the compiler offsets', () => {
    expect(MM_CID_LOG_VIEW_BYTES).toBe(layout.ks_mm_cid_log_view.size)
    const buf = record('ks_mm_cid_log_view', { first_seq: 7n, records: 4096n, count: 12 })
    expect(decodeMmCidLogView(viewsOf(buf), 0)).toEqual({ first_seq: 7, records: 4096, count: 12 })
  })
})
