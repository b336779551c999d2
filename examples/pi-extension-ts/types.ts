export interface Verdict {
  allowed: boolean;
  reason: string;
}

export type Segment = readonly string[];
