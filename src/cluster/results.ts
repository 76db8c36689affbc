/**
 * Publishing a node's result messages. A record larger than the server's message limit (a big
 * annotation document, say) waits in the object store and a small pointer travels instead.
 */
import { type ResultMessage, resultSubject } from "./protocol.ts";
import type { Cluster } from "./setup.ts";

/** Room left in a message for NATS headers and framing. */
const HEADROOM = 4096;

/** Publishes `msg` on the submission's result subject and waits for the stream's ack. */
export async function publishResult(
  cluster: Cluster,
  submission: string,
  msg: ResultMessage,
): Promise<void> {
  const subject = resultSubject(submission);
  let data = new TextEncoder().encode(JSON.stringify(msg));
  const max = cluster.nc.info?.max_payload ?? 1024 * 1024;
  if (data.length > max - HEADROOM) {
    const object = `result-${submission}-${msg.index}-${crypto.randomUUID().slice(0, 8)}`;
    await cluster.files.putBlob({ name: object }, data);
    data = new TextEncoder().encode(
      JSON.stringify({ kind: "spilled", index: msg.index, node: msg.node, object }),
    );
  }
  await cluster.js.publish(subject, data);
}
