/*
 * The app: one page per URL path (core/route.ts): "/" shows the machine's
 * topology, "/simulate" a modelled run on it. Each page owns its store.
 */
import { useRoute } from './core/route'
import { SimulatePage } from './pages/SimulatePage'
import { TopologyPage } from './pages/TopologyPage'

export default function App() {
  const { page, navigate } = useRoute()
  return <div className="app">{page === 'simulate' ? <SimulatePage navigate={navigate} /> : <TopologyPage navigate={navigate} />}</div>
}
