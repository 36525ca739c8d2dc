// The 'webhook.wake' job: a doorbell, "deliveries are due". The rows, not the job, are the work: the
// handler drains this process's delivery loop (claim due deliveries in batches and send them until
// none is left) and holds the process's one queue slot meanwhile, so the next doorbell goes to a
// process with room and waiting doorbells mean a backlog. 'webhook.deliver' (one job per attempt,
// from an older release) is taken as the same doorbell.
import type { DeliveryLoop } from '../delivery-loop';

export function wakeHandler(loop: Pick<DeliveryLoop, 'drain'>): () => Promise<void> {
  return () => loop.drain();
}
