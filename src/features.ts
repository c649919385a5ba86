/**
 * The features every environment runs, in the order they start: each may use the services of
 * those before it (ARCHITECTURE "Layout": a feature per API document, on the platform).
 */
import type { Feature } from "./feature.ts";
import { platformFeature } from "./platform/mod.ts";
import { courierFeature } from "./courier/mod.ts";
import { businessFeature } from "./business/mod.ts";
import { shoppingFeature } from "./shopping/mod.ts";

export const FEATURES: readonly Feature[] = [
  platformFeature,
  courierFeature,
  businessFeature,
  shoppingFeature,
];
