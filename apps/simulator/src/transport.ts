import { pino } from 'pino';
import { isAppError } from '#core';
import { createKafkaBus, topics, type MessageBus } from '#bus';
import type { CheckResultInput } from '#domain';
import { FatalRequestError, requestJson } from './http.ts';

/** How results leave the simulator: batches to the ingest API, or straight onto the Kafka topic. */

export interface Delivery {
  accepted: number;
  rejected: { index: number; message: string }[];
}

export interface Sender {
  readonly name: 'http' | 'kafka';
  /** Resolves once the results are durable; throws FatalRequestError when retrying cannot help. */
  send(results: CheckResultInput[]): Promise<Delivery>;
  close(): Promise<void>;
}

export function httpSender(options: { apiUrl: string; ingestKey: string }): Sender {
  const url = `${options.apiUrl}/v1/check-results`;
  return {
    name: 'http',
    async send(results) {
      const response = await requestJson<Delivery>('POST', url, {
        headers: { authorization: `Bearer ${options.ingestKey}` },
        body: results,
      });
      return response.body;
    },
    async close() {},
  };
}

export function kafkaSender(options: { brokers: string[]; topicPrefix: string }): Sender {
  // kafkajs's warnings go to stderr, so `--json` keeps stdout to the summary alone.
  const log = pino({ level: 'warn', base: { app: 'simulator' } }, pino.destination(2));
  const bus: MessageBus = createKafkaBus({ brokers: options.brokers, clientId: 'vigil-simulator', log });
  const topic = options.topicPrefix + topics.checkResults;
  return {
    name: 'kafka',
    async send(results) {
      // Keyed by check, like every producer of this topic, so a check's results stay in order.
      const messages = results.map((result) => ({ key: result.checkId, value: JSON.stringify(result) }));
      for (let attempt = 1; ; attempt++) {
        try {
          await bus.publish(topic, messages);
          // Kafka cannot judge a result; the ingestor validates it and dead-letters what fails.
          return { accepted: results.length, rejected: [] };
        } catch (error) {
          const retryable = isAppError(error) && error.retryable;
          if (!retryable)
            throw new FatalRequestError(
              `Kafka publish to ${topic} failed: ${error instanceof Error ? error.message : String(error)}`,
            );
          if (attempt >= 3) throw error;
          await new Promise((resolve) => setTimeout(resolve, 500 * attempt));
        }
      }
    },
    close: () => bus.close(),
  };
}
