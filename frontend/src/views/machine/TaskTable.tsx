/* Every live task: who it is, where it is, and how much CPU time it has had. */
import { msFromNs } from '../../core/shared/units'
import type { SimTask } from '../../core/shared/types'
import { PROCESS_COLOURS } from './summary'

const STATE_TEXT = { running: 'running', runnable: 'waiting (runnable)', sleeping: 'sleeping', dead: 'exited' } as const

export function taskPolicyText(t: SimTask): string {
  return t.policy === 'fifo' ? `FIFO · ${t.prio}` : `normal · ${t.prio}`
}

export function TaskTable({ tasks, colours }: { tasks: readonly SimTask[]; colours: Map<number, number> }) {
  const live = tasks.filter((t) => t.state !== 'dead')
  const exited = tasks.length - live.length
  return (
    <section className="panel task-table" aria-label="Tasks">
      <h2>
        Tasks <span className="hint-inline">({live.length} live{exited ? `, ${exited} exited not shown` : ''})</span>
      </h2>
      <div className="table-scroll">
        <table data-testid="task-table">
          <thead>
            <tr>
              <th scope="col">tid</th>
              <th scope="col">comm</th>
              <th scope="col">state</th>
              <th scope="col">CPU</th>
              <th scope="col" title="Scheduling policy and kernel priority (0-99 real-time, lower is higher; 100-139 normal)">policy · prio</th>
              <th scope="col" title="CFS virtual runtime">vruntime (ms)</th>
              <th scope="col" title="CPU time used so far">runtime (ms)</th>
            </tr>
          </thead>
          <tbody>
            {live.map((t) => {
              const colour = PROCESS_COLOURS[colours.get(t.tgid) ?? 0]
              return (
                <tr key={t.tid} className={`state-${t.state}`} data-tid={t.tid}>
                  <td className="num">{t.tid}</td>
                  <td>
                    <span className="swatch-chip" style={{ background: colour.fill }} aria-hidden="true" />
                    {t.comm}
                  </td>
                  <td>{STATE_TEXT[t.state]}</td>
                  <td className="num">{t.cpu}</td>
                  <td>{taskPolicyText(t)}</td>
                  <td className="num">{msFromNs(t.vruntime_ns)}</td>
                  <td className="num">{msFromNs(t.sum_exec_ns)}</td>
                </tr>
              )
            })}
          </tbody>
        </table>
      </div>
    </section>
  )
}
