/*
 * The app: one page per URL path (core/route.ts): "/" shows the machine's
 * topology, "/simulate" a modelled run on it, "/lesson/mm_cid" the mm_cid
 * lesson (7e019dc). Each page owns its store.
 */
import { useRoute } from './core/route'
import { MmCidLessonPage } from './pages/MmCidLessonPage'
import { SimulatePage } from './pages/SimulatePage'
import { TopologyPage } from './pages/TopologyPage'

export default function App() {
  const { page, navigate } = useRoute()
  return (
    <div className={`app page-${page}`}>
      {page === 'simulate' ? (
        <SimulatePage navigate={navigate} />
      ) : page === 'lesson' ? (
        <MmCidLessonPage navigate={navigate} />
      ) : (
        <TopologyPage navigate={navigate} />
      )}
    </div>
  )
}
