export class PlanState {
  private mode: "normal" | "planning" = "normal";

  get planning(): boolean {
    return this.mode === "planning";
  }

  enter(): void {
    this.mode = "planning";
  }

  leave(): void {
    this.mode = "normal";
  }
}
