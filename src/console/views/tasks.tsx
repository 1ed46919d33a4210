// The tasks view: the list at #/tasks, one task at #/tasks/<task_id> (views/tasks/).
import type { Route } from '../router.ts';
import { TaskList } from './tasks/list.tsx';
import { TaskView } from './tasks/task.tsx';

export function TasksView({ route }: { route: Route }) {
  const id = route.parts[1];
  return id === undefined ? <TaskList route={route} /> : <TaskView key={id} taskId={id} route={route} />;
}
