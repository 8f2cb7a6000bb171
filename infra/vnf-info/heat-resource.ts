/** One row of Heat's GET /stacks/{name}/{id}/resources?nested_depth=N. */
export interface HeatResource {
  resource_name: string;
  physical_resource_id: string;
  resource_type: string;
  resource_status: string;
  parent_resource?: string;
  creation_time?: string;
  links?: { href: string; rel: string }[];
  required_by?: string[];
}
